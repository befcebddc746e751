/** Plain-text tables for list-style output: columns padded to their widest cell, two spaces apart. */

/** Format `rows` (the first is the header) as aligned lines; the last column is not padded. */
export function table(rows: ReadonlyArray<ReadonlyArray<string>>): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

/** A timestamp as `YYYY-MM-DD HH:MM:SS` in local time. */
export function localTime(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}
