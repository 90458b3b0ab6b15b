// Types of the content script's parts (checked by `tsc`, never shipped as code): the shared
// namespace `globalThis.McpRelayContent` that the classic-script parts fill in manifest order,
// and the site adapters of sites.js.
import type { CallRecord, Attachment, InsertOutcome, SiteCheck, MessageType, Requests, Responses } from '../contract.js';

/** How an editor is written to (write.js). */
export type WriteStrategy = 'native-setter' | 'insert-text' | 'lines' | 'paste' | 'beforeinput' | 'dom-text';
/** A box in viewport CSS pixels (the part of an element on screen). */
export type Rect = { top: number; bottom: number; left: number; right: number };

/** One site adapter (sites.js). */
export interface Adapter {
  readonly id: string;
  readonly name: string;
  readonly hosts: readonly string[];
  readonly editor: 'textarea' | 'prosemirror' | 'lexical' | 'quill' | 'codemirror' | 'contenteditable' | 'auto';
  readonly input: readonly string[];
  readonly send: readonly string[];
  readonly stop: readonly string[];
  readonly disabled: readonly string[];
  readonly assistant: readonly string[];
  readonly user: readonly string[];
  readonly code: readonly string[];
  readonly files: { readonly input: readonly string[]; readonly drop: readonly string[]; readonly preview: readonly string[] } | null;
  readonly maxText: number;
  /** RegExp source matched against the URL path; group 1 is the conversation id. */
  readonly conversation?: string;
  /** [closest selector, attribute] pairs: the site's own id of a reply. */
  readonly messageId?: readonly (readonly [string, string])[];
  /** Reasoning containers: never replies, their text never parsed. */
  readonly thinking?: readonly string[];
  /** Inside a reply, what disclosure controls fold: left out of its text (the generic adapter). */
  readonly folded?: readonly string[];
  /** Markers present only while a reply streams. */
  readonly streaming?: readonly string[];
  /** Long pastes become an attachment chip; `sent`: the site sends it to the model. */
  readonly longPaste?: { readonly over: number; readonly chip: readonly string[]; readonly sent: boolean };
  /** Selectors that all match on the site's pages (self-hosted chats on any origin). */
  readonly signature?: readonly string[];
}

export interface SitesApi {
  readonly SITES: readonly Adapter[];
  readonly GENERIC: Adapter;
  byId(id: string): Adapter | null;
  forLocation(loc: { hostname: string; pathname?: string }): Adapter | null;
  bySignature(doc: ParentNode): Adapter | null;
}

export interface ContentState {
  /** The adapter in use (a custom site's is chosen once the core answers). */
  adapter: Adapter;
  /** Our UI's host element (its shadow root is closed and never stored anywhere). */
  ui: HTMLElement | null;
}

export interface Namespace {
  readonly Sites: SitesApi;
  readonly state: ContentState;
  /** Sends a contract message to the core; resolves with its typed answer. */
  call<T extends MessageType>(type: T, fields?: Requests[T]): Promise<Responses[T]>;
  t(key: string, fallback?: string, substitutions?: string[]): string;
  readonly dom: {
    chatUrl(): string;
    holdsChat(): boolean;
    /** What an editable box is (one definition for discovery and the teach picker). */
    readonly EDITABLE: string;
    /** Labels of send buttons. */
    readonly SEND_LABEL: RegExp;
    /** Whether a control's label says it is not a send button (stop, voice, attach, copy...). */
    notSend(label: string): boolean;
    firstMatch(selectors: readonly string[], root?: ParentNode): { selector: string; el: Element } | null;
    first(selectors: readonly string[], root?: ParentNode): HTMLElement | null;
    /** Every element any selector matches, in page order, once; the outermost of nested matches. */
    all(selectors: readonly string[], deep?: boolean): HTMLElement[];
    visible(el: Element | null | undefined): boolean;
    matchesAny(el: Element, selectors: readonly string[]): boolean;
    genericInput(): HTMLElement | null;
    findInput(): HTMLElement | null;
    findSend(input: HTMLElement | null): HTMLElement | null;
    stopLike(el: Element): boolean;
    enabled(btn: HTMLElement | null): boolean;
    isStreaming(): boolean;
    dialogOpen(): boolean;
    describe(el: Element): string;
    sleep(ms: number): Promise<unknown>;
    settle(): Promise<void>;
    norm(s: string): string;
  };
  cards: {
    renderCard(rec: CallRecord): void;
    setPending(pending: boolean): void;
    setStatus(state: string, kind?: string): void;
    clear(): void;
    readonly host: HTMLElement;
    /** Where the cards go (viewport CSS pixels), from the last reply's and the composer's on-screen boxes. */
    placement(reply: Rect | null, composer: Rect | null, size: { width: number; height: number }, view: { width: number; height: number }): { top: number; left: number; where: string };
  };
  read: {
    /** What a look carries of a reply's text: the appended part (`at`: length already sent) or the whole text. */
    replyDelta(sent: string | undefined, text: string): { text: string; at?: number };
    /** One look at the page, as `page/observe` carries it (marks what it read as sent). */
    observation(): import('../contract.js').Requests['page/observe'];
    startReading(): void;
    noteSubmit(): void;
    userMessages(): HTMLElement[];
    userTurnsShowText(): boolean;
    assistantCount(): number;
    /** The conversation's last turn (the last reply, or the user's message after it), or null. */
    lastTurn(): HTMLElement | null;
    userMessageCount(): number;
    conversationOf(href: string): string | null;
    scheduleScan(): void;
  };
  /** Discovery of a page's parts by shape (discover.js). */
  discover: {
    queryDeep(selector: string, roots?: (Document | ShadowRoot | Element)[]): HTMLElement[];
    allRoots(): (Document | ShadowRoot)[];
    parentOf(n: Node): Element | null;
    containsDeep(outer: Element, inner: Element): boolean;
    nearComposer(t: Element): boolean;
    stopShown(stop: RegExp): boolean;
    composerText(input: HTMLElement): string;
    expectChip(text: string): void;
    chipPending(): boolean;
    openRoot(el: Element): ShadowRoot | null;
    deepText(el: Element, skip?: readonly string[]): string;
    readable(el: HTMLElement): HTMLElement;
    findComposer(): HTMLElement | null;
    findSend(input: HTMLElement | null): HTMLElement | null;
    assistantTurns(): HTMLElement[];
    userTurns(): { turns: HTMLElement[]; showsText: boolean };
    noteSubmitted(text: string): void;
    /** Whether a turn's text shows a text the user submitted (a user turn). */
    isSubmitted(text: string): boolean;
    report(): { input: HTMLElement | null; send: HTMLElement | null; turns: HTMLElement[]; how: string; submitted: number };
    labelOf(el: Element): string;
    turnOf(el: Element, composer: Element | null): Element | null;
  };
  /** "Teach this page" (teach.js). */
  teach: {
    start(): void;
    notice(show: boolean): void;
    use(data: Record<string, any>): void;
    unsure(): boolean;
  };
  write: {
    /** `withoutFiles`: the core's text for when the page does not take the attachments. */
    insert(text: string, submit: boolean, attachments: Attachment[], withoutFiles?: string): Promise<InsertOutcome>;
    /** Sends results written earlier if the input still holds them (the delay before auto-send's end). */
    submitNow(text: string): Promise<import('../contract.js').SubmitOutcome>;
    writePath(editor: string, isField: boolean, kind?: string): readonly WriteStrategy[];
    kindOf(el: HTMLElement): string;
    lineLoss(held: string, meant: string): string | null;
    readonly WRITE_PATHS: Readonly<Record<string, readonly WriteStrategy[]>>;
  };
  check: { check(): SiteCheck };
  started?: boolean;
}

declare global {
  var McpRelayContent: Namespace | undefined;
  var McpRelaySites: SitesApi;
}
