// @ts-check
// A form generated from a JSON Schema: a tool's `inputSchema`, for running a tool by hand, and a
// server's question (elicitation). Strings, numbers and integers get inputs, enums get selects
// (showing titled options' titles), booleans a checkbox (required) or a three-way select
// (optional: unset / true / false), arrays of listed values checkboxes, other arrays, objects
// and unions a JSON textarea. Defaults are prefilled; required fields are marked. The core validates the
// arguments again before the call: this form only helps typing them.
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
      p = { ...resolve(real[0], root, depth + 1), ...own };
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
 * @param {any} prop
 * @param {string} type
 */
function describe(prop, type) {
  const bits = [type === 'json' ? (Array.isArray(prop.type) ? prop.type.join(' | ') : prop.type || 'JSON') : type];
  if (prop.minimum !== undefined || prop.maximum !== undefined) bits.push(`${prop.minimum ?? '…'}–${prop.maximum ?? '…'}`);
  if (prop.format) bits.push(prop.format);
  if (prop.pattern) bits.push(`/${prop.pattern}/`);
  return [prop.description, `(${bits.join(', ')})`].filter(Boolean).join(' ');
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
    };
  }
  if (Array.isArray(prop.enum) && prop.enum.length) {
    const options = prop.enum.map((/** @type {unknown} */ v, /** @type {number} */ i) => h('option', { value: String(i), text: optionText(v, prop.enumTitles && prop.enumTitles[i]) }));
    const el = h('select', { id, name }, required ? null : h('option', { value: '', text: t('formUnset') }), options);
    const at = prop.enum.findIndex((/** @type {unknown} */ v) => JSON.stringify(v) === JSON.stringify(dflt));
    el.value = at >= 0 ? String(at) : required ? '0' : '';
    return { el, type: 'enum', read: () => (el.value === '' ? undefined : prop.enum[Number(el.value)]) };
  }
  if (type === 'boolean') {
    if (required) {
      const el = h('input', { id, name, type: 'checkbox', checked: dflt === true });
      return { el, type, read: () => el.checked };
    }
    const el = h('select', { id, name }, h('option', { value: '', text: t('formUnset') }), h('option', { value: 'true', text: 'true' }), h('option', { value: 'false', text: 'false' }));
    el.value = dflt === true ? 'true' : dflt === false ? 'false' : '';
    return { el, type, read: () => (el.value === '' ? undefined : el.value === 'true') };
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
    };
  }
  if (type === 'string') {
    const long = (prop.maxLength ?? Infinity) > 200 && /text|content|body|query|prompt|message/i.test(name);
    const el = long ? h('textarea', { id, name, rows: 3 }) : h('input', { id, name, type: 'text' });
    if (typeof dflt === 'string') el.value = dflt;
    if (prop.examples && prop.examples[0] !== undefined) el.placeholder = String(prop.examples[0]);
    // An empty required string is a legitimate value; an empty optional one means "not given".
    return { el, type, read: () => (el.value === '' && !required ? undefined : el.value) };
  }
  const el = h('textarea', { id, name, rows: 3, class: 'mono', spellcheck: false });
  if (dflt !== undefined) el.value = json(dflt);
  else el.placeholder = prop.type === 'array' ? '[]' : prop.type === 'object' ? '{}' : 'JSON';
  return {
    el, type,
    read: () => {
      if (el.value.trim() === '') return undefined;
      try {
        return JSON.parse(el.value);
      } catch (e) {
        throw new Error(t('formBadJson', /** @type {Error} */ (e).message));
      }
    },
  };
}

/**
 * Builds the form body for `schema`. Returns `{element, collect}`; collect() returns
 * `{ok: true, value}` or `{ok: false}` after marking the invalid fields.
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
    const wrap = field(p.title ? `${p.title} (${name})` : name, c.el, { hint: describe(p, editType(p)), required: req });
    wrap.dataset.param = name;
    wrap.append(error);
    return { name, req, c, error, wrap };
  });
  const element = h('div', { class: 'schema-form' },
    fields.length ? fields.map((f) => f.wrap) : h('p', { class: 'muted', text: t('formNoParams') }));
  function collect() {
    /** @type {Record<string, unknown>} */
    const value = {};
    let ok = true;
    for (const f of fields) {
      f.error.textContent = '';
      f.c.el.removeAttribute('aria-invalid');
      try {
        const v = f.c.read();
        if (v === undefined) {
          if (f.req) throw new Error(t('formRequired'));
          continue;
        }
        value[f.name] = v;
      } catch (e) {
        ok = false;
        f.error.textContent = /** @type {Error} */ (e).message;
        f.c.el.setAttribute('aria-invalid', 'true');
        f.c.el.setAttribute('aria-errormessage', f.error.id);
      }
    }
    if (!ok) fields.find((f) => f.c.el.getAttribute('aria-invalid'))?.c.el.focus();
    return ok ? { ok, value } : { ok };
  }
  return { element, collect };
}
