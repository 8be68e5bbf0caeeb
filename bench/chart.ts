// The SVG line charts of docs/performance.md, shared by the sequential and the burst sections.

export interface Series {
  label: string;
  color: string;
  points: [number, number][];
}

/** A small SVG line chart: milliseconds against a log-scale x axis. */
export function lineChart(title: string, xLabel: string, series: Series[]): string {
  const all = series.flatMap((s) => s.points);
  const maxN = Math.max(...all.map((p) => p[0]), 2);
  const maxT = Math.max(...all.map((p) => p[1]), 1);
  const [w, h, m] = [640, 360, 60];
  const x = (n: number): number => m + (Math.log10(n) / Math.log10(maxN)) * (w - 2 * m);
  const y = (t: number): number => h - m + 20 - (t / maxT) * (h - 2 * m);
  const lines = series
    .map(
      (s, i) =>
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.points.map(([n, t]) => `${x(n).toFixed(1)},${y(t).toFixed(1)}`).join(' ')}"/>` +
        s.points
          .map(
            ([n, t]) => `<circle cx="${x(n).toFixed(1)}" cy="${y(t).toFixed(1)}" r="3" fill="${s.color}"/>`,
          )
          .join('') +
        `<text x="${w - m - 190}" y="${m - 30 + i * 16}" fill="${s.color}" font-size="12">${s.label}</text>`,
    )
    .join('\n');
  const ticks = [...new Set(all.map((p) => p[0]))]
    .map(
      (n) => `<text x="${x(n).toFixed(1)}" y="${h - m + 38}" font-size="11" text-anchor="middle">${n}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${m}" y="20" font-size="14">${title}</text>
<line x1="${m}" y1="${h - m + 20}" x2="${w - m}" y2="${h - m + 20}" stroke="black"/>
<line x1="${m}" y1="${m - 10}" x2="${m}" y2="${h - m + 20}" stroke="black"/>
<text x="${m - 8}" y="${m - 4}" font-size="11" text-anchor="end">${Math.round(maxT)} ms</text>
<text x="${m - 8}" y="${h - m + 20}" font-size="11" text-anchor="end">0</text>
<text x="${w / 2}" y="${h - 8}" font-size="12" text-anchor="middle">${xLabel}</text>
${ticks}
${lines}
</svg>
`;
}
