/**
 * The reference page at /docs: the OpenAPI document rendered to plain HTML on
 * the server. Self-contained (no scripts, no fonts, no CDN), so it reads offline.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** `code` spans in descriptions, and nothing else from markdown. */
const text = (s: unknown) => esc(s ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');

const refName = (ref: string) => ref.replace('#/components/schemas/', '');
const anchor = (name: string) => `schema-${name}`;

/** A schema as indented JSON with its $refs turned into links. */
function schemaBlock(schema: unknown): string {
  const json = esc(JSON.stringify(schema, null, 2));
  return `<pre>${json.replace(/&quot;#\/components\/schemas\/(\w+)&quot;/g, (_m, n: string) => `<a href="#${anchor(n)}">${n}</a>`)}</pre>`;
}

const CSS = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafafa}
main{max-width:980px;margin:0 auto;padding:24px}
h1{margin:0 0 4px}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:40px}
nav a{margin-right:12px}
section.op{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:12px 16px;margin:14px 0}
.m{display:inline-block;min-width:62px;text-align:center;font-weight:700;border-radius:4px;padding:1px 6px;color:#fff;margin-right:8px}
.get{background:#2f7d32}.post{background:#1f5fa8}.delete{background:#b3261e}
.path{font-family:ui-monospace,monospace;font-size:15px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #e2e2e2;padding:3px 8px;text-align:left;vertical-align:top}
pre{background:#f3f3f3;padding:8px;overflow:auto;font-size:13px}code{background:#f0f0f0;padding:0 3px}
.roles{color:#555}
`;

export function renderDocs(doc: Json): string {
  const ops: { tag: string; method: string; path: string; op: Json }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) ops.push({ tag: (op as Json).tags?.[0] ?? 'Other', method, path, op: op as Json });
  }
  const tags: string[] = (doc.tags as Json[]).map((t) => t.name as string);
  const body = tags
    .map((tag) => {
      const list = ops.filter((o) => o.tag === tag);
      return `<h2 id="tag-${esc(tag)}">${esc(tag)}</h2>${list.map(renderOp).join('')}`;
    })
    .join('');
  const schemas = Object.entries(doc.components.schemas as Json)
    .map(([name, s]) => `<h3 id="${anchor(name)}">${esc(name)}</h3>${schemaBlock(s)}`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} reference</title><style>${CSS}</style></head><body><main>
<h1>${esc(doc.info.title)}</h1><p>OpenAPI ${esc(doc.openapi)} · version ${esc(doc.info.version)} · <a href="/openapi.json">openapi.json</a></p>
<p>${text(doc.info.description)}</p>
<p>Authentication: <code>Authorization: Bearer &lt;JWT&gt;</code> (HS256, claims <code>sub</code> and <code>role</code>).</p>
<nav>${tags.map((t) => `<a href="#tag-${esc(t)}">${esc(t)}</a>`).join('')}<a href="#schemas">Schemas</a></nav>
${body}<h2 id="schemas">Schemas</h2>${schemas}</main></body></html>`;
}

function renderOp({ method, path, op }: { method: string; path: string; op: Json }): string {
  const params = (op.parameters ?? []) as Json[];
  const paramTable = params.length
    ? `<table><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>${params
        .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${esc(JSON.stringify(p.schema))}</code>${p.description ? `<br>${text(p.description)}` : ''}</td></tr>`)
        .join('')}</table>`
    : '';
  const reqRef = op.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
  const responses = Object.entries(op.responses as Json)
    .map(([status, r]) => {
      const ref = (r as Json).content?.['application/json']?.schema?.$ref as string | undefined;
      const other = !ref && (r as Json).content ? Object.keys((r as Json).content)[0] : null;
      return `<tr><td>${esc(status)}</td><td>${text((r as Json).description)}</td><td>${ref ? `<a href="#${anchor(refName(ref))}">${esc(refName(ref))}</a>` : other ? esc(other) : ''}</td></tr>`;
    })
    .join('');
  return `<section class="op" id="op-${esc(op.operationId)}"><div><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span><span class="path">${esc(path)}</span></div>
<p>${text(op.summary)}</p><p class="roles">${op['x-roles'] ? `Roles: ${esc((op['x-roles'] as string[]).join(', '))}` : 'Public'}</p>
${paramTable}${reqRef ? `<p>Body: <a href="#${anchor(refName(reqRef))}">${esc(refName(reqRef))}</a> (application/json)</p>` : ''}
<table><tr><th>status</th><th>meaning</th><th>body</th></tr>${responses}</table></section>`;
}
