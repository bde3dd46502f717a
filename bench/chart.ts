/** A small hand-written SVG line chart: categorical x (one tick per point), linear y from 0. */
export interface Series {
  name: string;
  values: number[];
  color: string;
  dashed?: boolean;
}

export function lineChart(options: {
  title: string;
  xLabel: string;
  yLabel: string;
  categories: string[];
  series: Series[];
  width?: number;
  height?: number;
}): string {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const margin = { top: 40, right: 180, bottom: 50, left: 60 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const max = niceMax(Math.max(1, ...options.series.flatMap((s) => s.values.filter(Number.isFinite))));
  const x = (i: number) =>
    margin.left +
    (options.categories.length === 1 ? plotW / 2 : (plotW * i) / (options.categories.length - 1));
  const y = (value: number) => margin.top + plotH - (plotH * value) / max;
  const ticks = Array.from({ length: 6 }, (_, i) => (max * i) / 5);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2 - margin.right / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escape(options.title)}</text>`,
  ];
  for (const tick of ticks) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`,
      `<text x="${margin.left - 6}" y="${y(tick) + 4}" text-anchor="end">${formatTick(tick)}</text>`,
    );
  }
  options.categories.forEach((category, i) => {
    parts.push(
      `<line x1="${x(i)}" x2="${x(i)}" y1="${margin.top + plotH}" y2="${margin.top + plotH + 5}" stroke="#333"/>`,
      `<text x="${x(i)}" y="${margin.top + plotH + 18}" text-anchor="middle">${escape(category)}</text>`,
    );
  });
  parts.push(
    `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#333"/>`,
    `<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#333"/>`,
    `<text x="${margin.left + plotW / 2}" y="${height - 10}" text-anchor="middle">${escape(options.xLabel)}</text>`,
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(options.yLabel)}</text>`,
  );
  options.series.forEach((series, index) => {
    const points = series.values.map((value, i) => `${x(i)},${y(value)}`).join(" ");
    const dash = series.dashed ? ` stroke-dasharray="6 4"` : "";
    parts.push(
      `<polyline points="${points}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>`,
      ...series.values.map(
        (value, i) =>
          `<circle cx="${x(i)}" cy="${y(value)}" r="3.5" fill="${series.color}"><title>${escape(series.name)}: ${value}</title></circle>` +
          `<text x="${x(i) + 6}" y="${y(value) - 6}" fill="${series.color}">${value}</text>`,
      ),
    );
    const legendY = margin.top + 10 + index * 20;
    const legendX = margin.left + plotW + 16;
    parts.push(
      `<line x1="${legendX}" x2="${legendX + 24}" y1="${legendY}" y2="${legendY}" stroke="${series.color}" stroke-width="2"${dash}/>`,
      `<text x="${legendX + 30}" y="${legendY + 4}">${escape(series.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

function niceMax(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
