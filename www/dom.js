// @ts-check
// DOM construction for the side panel. Everything a server, a chat or a user supplies becomes a
// text node or an attribute value here, so no markup from outside is ever parsed: the panel
// builds elements with createElement and sets text with textContent only.

/**
 * Creates an element.
 * `props`: `class`, `text`, `dataset`, `attrs` (set with setAttribute), `on` (event listeners),
 * `style` (an object of CSS properties); any other key is assigned as a DOM property
 * (`type`, `value`, `checked`, `disabled`, `hidden`, `id`, `htmlFor`, ...).
 * Children: nodes, strings (as text), arrays (flattened); null, undefined and false are skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [props]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  /** @type {Record<string, any>} */
  const any = el;
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    switch (key) {
      case 'class': el.className = value; break;
      case 'text': el.textContent = String(value); break;
      case 'dataset': Object.assign(el.dataset, value); break;
      case 'attrs':
        for (const [name, v] of Object.entries(value)) {
          if (v === false || v === null || v === undefined) continue;
          el.setAttribute(name, v === true ? '' : String(v));
        }
        break;
      case 'on': for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn); break;
      case 'style': Object.assign(el.style, value); break;
      default: any[key] = value;
    }
  }
  append(el, children);
  return el;
}

/**
 * @param {Node & ParentNode} el
 * @param {any[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let uid = 0;
/** A document-unique id for label/ARIA wiring. */
export function nextId(prefix = 'id') {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * A labelled form control: `<label>` + control, wired by id; returns the wrapper.
 * @param {string} labelText
 * @param {HTMLElement} control
 * @param {{hint?: string, required?: boolean}} [options]
 */
export function field(labelText, control, { hint, required = false } = {}) {
  if (!control.id) control.id = nextId('f');
  const label = h('label', { htmlFor: control.id }, labelText, required ? h('span', { class: 'req', attrs: { 'aria-hidden': 'true' }, text: ' *' }) : null);
  if (required) control.setAttribute('aria-required', 'true');
  /** @type {HTMLElement | null} */
  let hintEl = null;
  if (hint) {
    hintEl = h('small', { class: 'hint', id: nextId('h'), text: hint });
    control.setAttribute('aria-describedby', hintEl.id);
  }
  return h('div', { class: 'field' }, label, control, hintEl);
}

/**
 * A checkbox styled as a switch, with its label.
 * @param {string} labelText
 * @param {boolean} checked
 * @param {((checked: boolean, input: HTMLInputElement) => void) | null} [onChange]
 * @param {{id?: string}} [options]
 */
export function toggle(labelText, checked, onChange, { id } = {}) {
  const input = h('input', { type: 'checkbox', checked: !!checked, id: id || nextId('t'), attrs: { role: 'switch' } });
  if (onChange) input.addEventListener('change', () => onChange(input.checked, input));
  return h('label', { class: 'switch', htmlFor: input.id }, input, h('span', { text: labelText }));
}

/**
 * A `<select>` of [value, label] pairs.
 * @param {string[][]} options [value, label] pairs
 * @param {string | null | undefined} value
 * @param {Record<string, any>} [props]
 */
export function select(options, value, props = {}) {
  const el = h('select', props, options.map(([v, label]) => h('option', { value: v, text: label })));
  el.value = value ?? '';
  return el;
}

/**
 * Pretty JSON for display (never parsed as markup).
 * @param {unknown} value
 */
export function json(value) {
  try {
    return JSON.stringify(value, null, 2) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/**
 * Copies text with the async clipboard API, falling back to a selected textarea.
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h('textarea', { value: text, class: 'offscreen', attrs: { 'aria-hidden': 'true' } });
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}
