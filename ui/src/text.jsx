// Small shared views: a key/value table and a block of text (escaped by Preact, as all text).

export function KeyValues({ values, label, empty }) {
  const entries = Object.entries(values || {});
  if (!entries.length) return <p class="muted">{empty}</p>;
  return (
    <table class="kv" aria-label={label}>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{typeof v === "string" ? v : <pre>{JSON.stringify(v, null, 2)}</pre>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function TextBlock({ text, label }) {
  return (
    <pre class="text-block" tabindex="0" aria-label={label}>{text}</pre>
  );
}

export function when(value) {
  return value ? value.replace("T", " ").replace(/(\.\d+)?(Z|[+-]00:00)?$/, "") : "";
}
