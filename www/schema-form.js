// @ts-check
// A form generated from a JSON Schema: a tool's `inputSchema`, for running a tool by hand, and a
// server's question (elicitation). Strings, numbers and integers get inputs, enums get selects
// (showing titled options' titles), booleans a checkbox (an optional one untouched and without a
// default is "not given"), arrays of listed values checkboxes, other arrays, objects and unions a
// JSON editor (validated as typed: the value must parse and be of the schema's type). Fields are
// labelled by their title (else their name), never by their JSON type; hints say the bounds and
// formats in words. Defaults are prefilled; required fields are marked; an empty required string
// is missing; lengths, `pattern` (the browser's own ECMA-262 engine, as the schema means it) and
// the formats email, uri, date and date-time are checked before sending. The core validates the
// values again: this form only helps typing them.
import { h, field, nextId, json } from './dom.js';
import { t } from './i18n.js';

/**
 * A property schema with what generators wrap around it undone, so the form sees the real type:
 * local `$ref`s (`#/$defs/X`, `#/definitions/X`, resolved against `root`), a single-entry
 * `allOf`, nullable unions (`anyOf: [X, {type: "null"}]`, as Option<T> is written) and
 * `oneOf`/`anyOf` lists of constants (documented enums). The property's own keywords
 * (description, default, title) win over the referenced ones.
 * Schemas come from servers (untrusted JSON of any shape), hence `any`.
 * @param {any} prop
 * @param {any} root
 * @param {number} [depth]
 * @returns {any}
 */
export function resolve(prop, root, depth = 0) {
  if (!prop || typeof prop !== 'object' || depth > 8) return prop;
  let p = prop;
  if (typeof p.$ref === 'string' && p.$ref.startsWith('#/')) {
    let target = root;
    for (const part of p.$ref.slice(2).split('/')) target = target && typeof target === 'object' ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    const { $ref, ...own } = p;
    p = target && typeof target === 'object' ? { ...resolve(target, root, depth + 1), ...own } : own;
  }
  if (Array.isArray(p.allOf) && p.allOf.length === 1) {
    const { allOf, ...own } = p;
    p = { ...resolve(allOf[0], root, depth + 1), ...own };
  }
  for (const key of ['anyOf', 'oneOf']) {
    const alts = p[key];
    if (!Array.isArray(alts)) continue;
    const real = alts.filter((/** @type {any} */ a) => !(a && a.type === 'null'));
    const { [key]: _, ...own } = p;
    if (real.length === 1 && alts.length === 2) {
      // `Option<T>`: the field is T's, and null (often its default) stays a valid value.
      p = { ...resolve(real[0], root, depth + 1), ...own, nullable: true };
    } else if (alts.length && alts.every((/** @type {any} */ a) => a && 'const' in a)) {
      // Titled options (`{const, title}`) keep their titles for the select to show.
      const titles = alts.map((/** @type {any} */ a) => (typeof a.title === 'string' ? a.title : undefined));
      p = { ...own, enum: alts.map((/** @type {any} */ a) => a.const), type: own.type || (alts.every((/** @type {any} */ a) => typeof a.const === 'string') ? 'string' : undefined) };
      if (titles.some(Boolean)) p.enumTitles = titles;
    }
  }
  // The legacy spelling of titled options.
  if (Array.isArray(p.enumNames) && !p.enumTitles) p = { ...p, enumTitles: p.enumNames };
  // A multi-select: an array whose items are listed values (elicitation's 2025-11-25 schema).
  if (p.type === 'array' && p.items && typeof p.items === 'object' && !Array.isArray(p.options)) {
    const items = resolve(p.items, root, depth + 1);
    if (Array.isArray(items && items.enum)) p = { ...p, options: items.enum, ...(items.enumTitles ? { optionTitles: items.enumTitles } : {}) };
  }
  return p;
}

/**
 * What an option of a select or multi-select shows: its title, else the value.
 * @param {unknown} value
 * @param {unknown} [title]
 */
function optionText(value, title) {
  return typeof title === 'string' && title ? title : typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The single JSON type a property is edited as: string, number, integer, boolean or json.
 * @param {any} prop
 * @returns {'string' | 'number' | 'integer' | 'boolean' | 'json'}
 */
export function editType(prop) {
  if (!prop || typeof prop !== 'object') return 'json';
  let type = prop.type;
  if (Array.isArray(type)) type = type.find((/** @type {unknown} */ x) => x !== 'null') ?? 'null';
  if (!type && Array.isArray(prop.enum) && prop.enum.length) {
    const kinds = new Set(prop.enum.map((/** @type {unknown} */ v) => typeof v));
    type = kinds.size === 1 && kinds.has('string') ? 'string' : kinds.size === 1 && kinds.has('number') ? 'number' : undefined;
  }
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

/**
 * What a field's hint says besides its description: its bounds and format, in words.
 * @param {any} prop
 * @param {string} type
 */
function describe(prop, type) {
  const bits = [];
  if (type === 'string' && (prop.minLength !== undefined || prop.maxLength !== undefined)) bits.push(t('formHintLength', String(prop.minLength ?? 0), String(prop.maxLength ?? '∞')));
  if ((type === 'number' || type === 'integer') && (prop.minimum !== undefined || prop.maximum !== undefined)) bits.push(t('formHintRange', String(prop.minimum ?? '−∞'), String(prop.maximum ?? '∞')));
  if (type === 'string' && FORMATS[prop.format]) bits.push(t('formHintFormat_' + prop.format.replace('-', '_')));
  return [prop.description, bits.join(' · ')].filter(Boolean).join(' — ');
}

/**
 * The string formats the form checks (MCP elicitation lists these), as the core checks them
 * (`relay_core::elicitation::fits_format`).
 * @type {Record<string, (s: string) => boolean>}
 */
const FORMATS = {
  email: (s) => /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(s),
  uri: (s) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(s),
  date: (s) => isDate(s),
  'date-time': (s) => {
    const m = /^(\d{4}-\d{2}-\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(s);
    return !!m && isDate(m[1]);
  },
};

/** @param {string} s */
function isDate(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return days !== undefined && d >= 1 && d <= days;
}

/**
 * The problems of a string value against its schema, as a message, or '' when it fits.
 * @param {any} prop
 * @param {string} value
 */
export function stringProblem(prop, value) {
  const length = [...value].length;
  if ((prop.minLength !== undefined && length < prop.minLength) || (prop.maxLength !== undefined && length > prop.maxLength)) {
    return t('formLength', String(prop.minLength ?? 0), String(prop.maxLength ?? '∞'));
  }
  if (typeof prop.pattern === 'string') {
    let re = null;
    try {
      re = new RegExp(prop.pattern, 'u');
    } catch {
      // A pattern the browser cannot read is the server's mistake: the server checks it.
    }
    if (re && !re.test(value)) return t('formPattern');
  }
  const fits = FORMATS[prop.format];
  if (fits && !fits(value)) return t('formFormat_' + prop.format.replace('-', '_'));
  return '';
}

/**
 * A JSON value's problem against the type its schema names (object or array), or ''.
 * @param {any} prop
 * @param {unknown} value
 */
function jsonProblem(prop, value) {
  const types = Array.isArray(prop.type) ? prop.type : prop.type ? [prop.type] : [];
  if (!types.length) return '';
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  if (kind === 'null' && prop.nullable) return '';
  const fits = types.some((/** @type {string} */ ty) => ty === kind || (ty === 'integer' && Number.isInteger(value)) || (ty === 'number' && kind === 'number'));
  return fits ? '' : t('formJsonType', types.join(' | '));
}

/**
 * One control for one property: its element, its edit type and how to read its value.
 * @param {string} name
 * @param {any} prop
 * @param {boolean} required
 */
function control(name, prop, required) {
  const type = editType(prop);
  const id = nextId('arg');
  const dflt = prop.default;
  if (Array.isArray(prop.options) && prop.options.length) {
    // A multi-select: one checkbox per listed value; none picked reads as "not given".
    /** @type {{v: unknown, box: HTMLInputElement, label: HTMLLabelElement}[]} */
    const boxes = prop.options.map((/** @type {unknown} */ v, /** @type {number} */ i) => {
      const on = Array.isArray(dflt) && dflt.some((/** @type {unknown} */ d) => JSON.stringify(d) === JSON.stringify(v));
      const box = h('input', { type: 'checkbox', name, value: String(i), checked: on });
      return { v, box, label: h('label', { class: 'check' }, box, ' ', optionText(v, prop.optionTitles && prop.optionTitles[i])) };
    });
    const el = h('div', { id, class: 'multi', attrs: { role: 'group', 'aria-label': name } }, boxes.map((b) => b.label));
    return {
      el, type: 'json',
      read: () => {
        const picked = boxes.filter((b) => b.box.checked).map((b) => b.v);
        return picked.length || required ? picked : undefined;
      },
      write: (/** @type {unknown} */ v) => {
        for (const b of boxes) b.box.checked = Array.isArray(v) && v.some((x) => JSON.stringify(x) === JSON.stringify(b.v));
      },
    };
  }
  if (Array.isArray(prop.enum) && prop.enum.length) {
    const options = prop.enum.map((/** @type {unknown} */ v, /** @type {number} */ i) => h('option', { value: String(i), text: optionText(v, prop.enumTitles && prop.enumTitles[i]) }));
    const el = h('select', { id, name }, required ? null : h('option', { value: '', text: t('formUnset') }), options);
    const at = prop.enum.findIndex((/** @type {unknown} */ v) => JSON.stringify(v) === JSON.stringify(dflt));
    el.value = at >= 0 ? String(at) : required ? '0' : '';
    return {
      el, type: 'enum', read: () => (el.value === '' ? undefined : prop.enum[Number(el.value)]),
      write: (/** @type {unknown} */ v) => {
        const i = prop.enum.findIndex((/** @type {unknown} */ x) => JSON.stringify(x) === JSON.stringify(v));
        el.value = i >= 0 ? String(i) : required ? '0' : '';
      },
    };
  }
  if (type === 'boolean') {
    // A checkbox; an optional one the user never touched (and without a default) is not given.
    const el = h('input', { id, name, type: 'checkbox', checked: dflt === true });
    let touched = required || typeof dflt === 'boolean';
    el.addEventListener('change', () => { touched = true; });
    return {
      el, type, read: () => (touched ? el.checked : undefined),
      write: (/** @type {unknown} */ v) => {
        el.checked = v === true;
        touched = required || typeof v === 'boolean';
      },
    };
  }
  if (type === 'number' || type === 'integer') {
    const el = h('input', { id, name, type: 'number', step: type === 'integer' ? '1' : 'any', inputMode: type === 'integer' ? 'numeric' : 'decimal' });
    if (prop.minimum !== undefined) el.min = String(prop.minimum);
    if (prop.maximum !== undefined) el.max = String(prop.maximum);
    if (typeof dflt === 'number') el.value = String(dflt);
    return {
      el, type,
      read: () => {
        if (el.value.trim() === '') return undefined;
        const n = Number(el.value);
        if (!Number.isFinite(n)) throw new Error(t('formNotNumber'));
        if (type === 'integer' && !Number.isInteger(n)) throw new Error(t('formNotInteger'));
        return n;
      },
      write: (/** @type {unknown} */ v) => { el.value = v === undefined || v === null ? '' : String(v); },
    };
  }
  if (type === 'string') {
    const long = (prop.maxLength ?? Infinity) > 200 && /text|content|body|query|prompt|message/i.test(name);
    const el = long ? h('textarea', { id, name, rows: 3 }) : h('input', { id, name, type: 'text' });
    if (typeof dflt === 'string') el.value = dflt;
    if (prop.examples && prop.examples[0] !== undefined) el.placeholder = String(prop.examples[0]);
    if (prop.format === 'email') el.setAttribute('inputmode', 'email');
    if (prop.format === 'uri') el.setAttribute('inputmode', 'url');
    // A blank string is "not given" (a required one is then missing); any other is checked
    // against its bounds, pattern and format.
    return {
      el, type,
      read: () => {
        if (el.value.trim() === '') return undefined;
        const problem = stringProblem(prop, el.value);
        if (problem) throw new Error(problem);
        return el.value;
      },
      write: (/** @type {unknown} */ v) => { el.value = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v); },
    };
  }
  // The JSON editor: checked as the user types (it must parse, and be of the schema's type).
  const el = h('textarea', { id, name, rows: 4, class: 'mono json-editor', spellcheck: false, dataset: { editor: 'json' } });
  if (dflt !== undefined) el.value = json(dflt);
  else el.placeholder = prop.type === 'array' ? '[]' : prop.type === 'object' ? '{}' : 'JSON';
  const parse = () => {
    if (el.value.trim() === '') return undefined;
    let value;
    try {
      value = JSON.parse(el.value);
    } catch (e) {
      throw new Error(t('formBadJson', /** @type {Error} */ (e).message));
    }
    const problem = jsonProblem(prop, value);
    if (problem) throw new Error(problem);
    return value;
  };
  return { el, type, read: parse, live: true, write: (/** @type {unknown} */ v) => { el.value = v === undefined ? '' : json(v); } };
}

/**
 * Builds the form body for `schema`. Returns `{element, collect, read, fill, showError}`;
 * collect() returns `{ok: true, value}` or `{ok: false}` after marking the invalid fields;
 * read() returns what the fields hold now without judging it (a field that does not read yet is
 * left out), fill(value) puts a value into the fields and clears their marks (another editor of
 * the same value: the run form's "Edit as JSON"); keys the form has no field for are kept and
 * given back by collect() and read(). showError(name, message) marks one field with a message
 * from elsewhere (the core's refusal).
 * @param {any} schema a JSON Schema of type object
 */
export function schemaForm(schema) {
  const props = (schema && typeof schema === 'object' && schema.properties && typeof schema.properties === 'object') ? schema.properties : {};
  const required = new Set(Array.isArray(schema && schema.required) ? schema.required : []);
  const fields = Object.entries(props).map(([name, prop]) => {
    const p = (prop && typeof prop === 'object' && resolve(prop, schema)) || {};
    const req = required.has(name);
    const c = control(name, p, req);
    const error = h('small', { class: 'field-error', id: nextId('e'), attrs: { role: 'alert' } });
    const wrap = field(typeof p.title === 'string' && p.title ? p.title : name, c.el, { hint: describe(p, editType(p)), required: req });
    wrap.dataset.param = name;
    wrap.append(error);
    const f = { name, req, c, error, wrap };
    if (c.live) c.el.addEventListener('input', () => check(f));
    return f;
  });
  /**
   * Reads one field, marking it when its value does not fit.
   * @param {{name: string, req: boolean, c: {el: HTMLElement, read: () => unknown}, error: HTMLElement}} f
   * @returns {{ok: boolean, value?: unknown}}
   */
  function check(f) {
    f.error.replaceChildren();
    f.c.el.removeAttribute('aria-invalid');
    try {
      const v = f.c.read();
      if (v === undefined && f.req) throw new Error(t('formRequired'));
      return { ok: true, value: v };
    } catch (e) {
      mark(f, /** @type {Error} */ (e).message);
      return { ok: false };
    }
  }
  /**
   * @param {{c: {el: HTMLElement}, error: HTMLElement}} f
   * @param {string | Node} message
   */
  function mark(f, message) {
    f.error.replaceChildren(message);
    f.c.el.setAttribute('aria-invalid', 'true');
    f.c.el.setAttribute('aria-errormessage', f.error.id);
  }
  const element = h('div', { class: 'schema-form' },
    fields.length ? fields.map((f) => f.wrap) : h('p', { class: 'muted', text: t('formNoParams') }));
  /** @type {Record<string, unknown>} */
  let extra = {};
  function read() {
    /** @type {Record<string, unknown>} */
    const value = { ...extra };
    for (const f of fields) {
      try {
        const v = f.c.read();
        if (v !== undefined) value[f.name] = v;
      } catch {
        // Not a value yet: left out.
      }
    }
    return value;
  }
  /** @param {Record<string, unknown>} value */
  function fill(value) {
    const names = new Set(fields.map((f) => f.name));
    extra = Object.fromEntries(Object.entries(value).filter(([k]) => !names.has(k)));
    for (const f of fields) {
      f.c.write(value[f.name]);
      f.error.replaceChildren();
      f.c.el.removeAttribute('aria-invalid');
    }
  }
  function collect() {
    /** @type {Record<string, unknown>} */
    const value = { ...extra };
    let ok = true;
    for (const f of fields) {
      const got = check(f);
      if (!got.ok) ok = false;
      else if (got.value !== undefined) value[f.name] = got.value;
    }
    if (!ok) fields.find((f) => f.c.el.getAttribute('aria-invalid'))?.c.el.focus();
    return ok ? { ok, value } : { ok };
  }
  /**
   * Shows a message next to field `name` (the core refused it); false when there is none.
   * @param {string} name
   * @param {string | Node} message
   */
  function showError(name, message) {
    const f = fields.find((x) => x.name === name);
    if (!f) return false;
    mark(f, message);
    f.c.el.focus();
    return true;
  }
  return { element, collect, read, fill, showError };
}
