// format.js -- number formatting shared by the app and the charts.
const nf = new Intl.NumberFormat('en-US');

/** "1,536 B" / "1.5 KiB" style; compact=false gives "1,536 B (1.5 KiB)". */
export function formatBytes(n, { compact = true } = {}) {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  if (Math.abs(n) < 1024) return `${nf.format(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n, i = -1;
  do { v /= 1024; i++; } while (Math.abs(v) >= 1024 && i < units.length - 1);
  const short = `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[i]}`;
  return compact ? short : `${nf.format(n)} B (${short})`;
}

export const formatInt = (n) => (n === null || n === undefined || Number.isNaN(n) ? '—' : nf.format(n));

export function formatRatio(r) {
  if (r === null || r === undefined || Number.isNaN(r)) return '—';
  return `${(r * 100).toFixed(1)}%`;
}
