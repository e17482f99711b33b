// The report's SVG: the hold p99 against concurrency panel draws one line per
// server over the concurrency levels, gaps left where a value is missing.
import { renderBarChart } from '../src/report/svg-chart.render';

test('when a panel has lines, then each series is a polyline through its points and the levels label the x axis', () => {
  const svg = renderBarChart('t', 's', [{
    title: 'Hold p99 against concurrency', unit: 'ms', bars: [],
    lines: {
      xLabel: 'concurrent clients', xs: [10, 50, 100],
      series: [
        { label: 'holdfast POST holds', values: [5, 20, 40] },
        { label: 'bare node:http', values: [2, 8, 15] },
        { label: 'minimal Express', values: [4, null, 30] },
      ],
    },
  }]);
  const polylines = [...svg.matchAll(/<polyline points="([^"]+)"/g)].map((m) => m[1]!.split(' ').length);
  expect(polylines).toEqual([3, 3, 2]);
  expect(svg.match(/<circle /g)).toHaveLength(8);
  for (const text of ['>10<', '>50<', '>100<', 'concurrent clients', 'holdfast POST holds', 'bare node:http', 'minimal Express', 'Hold p99 against concurrency']) {
    expect(svg).toContain(text);
  }
  // The highest point (40 ms) is drawn highest: the smallest y of all points.
  const ys = [...svg.matchAll(/<circle cx="[^"]+" cy="([^"]+)"/g)].map((m) => Number(m[1]));
  expect(Math.min(...ys)).toBe(ys[2]);
});

test('when a panel has neither bars nor line values, then it is left out', () => {
  const svg = renderBarChart('t', 's', [{ title: 'Empty panel', unit: 'ms', bars: [], lines: { xLabel: 'x', xs: [], series: [] } }]);
  expect(svg).not.toContain('Empty panel');
});
