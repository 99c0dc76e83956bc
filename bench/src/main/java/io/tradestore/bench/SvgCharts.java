package io.tradestore.bench;

import java.util.List;
import java.util.Locale;

/**
 * Hand-written SVG charts for docs/benchmarks.md: no charting library, plain SVG 1.1 that GitHub and browsers render.
 * Two shapes: a horizontal bar chart (one bar per label, an optional reference line such as "1x") and a line plot
 * of latency by percentile on the usual HdrHistogram axis (x = log10(1 / (1 - p)), so 90%, 99%, 99.9% are equally
 * spaced).
 */
final class SvgCharts {
    private static final int WIDTH = 760;
    private static final String FONT = "font-family=\"sans-serif\" font-size=\"12\"";
    private static final String[] COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};

    private SvgCharts() {
    }

    /**
     * A horizontal bar chart.
     *
     * @param title     the chart's title.
     * @param labels    one label per bar.
     * @param values    bar lengths (non-negative).
     * @param valueText the text printed after each bar.
     * @param reference a value drawn as a dashed vertical line with {@code referenceText}, or NaN for none.
     * @param referenceText label of the reference line.
     * @return the SVG document.
     */
    static String bars(final String title, final List<String> labels, final double[] values,
        final List<String> valueText,
                       final double reference, final String referenceText) {
        final int left = 300;
        final int right = 90;
        final int barHeight = 22;
        final int top = 40;
        final int height = top + labels.size() * (barHeight + 8) + 30;
        double max = Double.isNaN(reference) ? 0 : reference;
        for (final double v : values) {
            if (v > max && Double.isFinite(v)) {
                max = v;
            }
        }
        max = max <= 0 ? 1 : max * 1.05;
        final double scale = (WIDTH - left - right) / max;
        final StringBuilder sb = header(WIDTH, height, title);
        for (int i = 0; i < labels.size(); i++) {
            final int y = top + i * (barHeight + 8);
            final double v = Double.isFinite(values[i]) ? Math.max(0, values[i]) : 0;
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" %s>%s</text>%n", left - 8,
                y + 15, FONT,
                escape(labels.get(i))));
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                left, y, v * scale,
                barHeight, COLOURS[0]));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" %s>%s</text>%n", left + v * scale + 6,
                y + 15, FONT,
                escape(valueText.get(i))));
        }
        if (!Double.isNaN(reference)) {
            final double x = left + reference * scale;
            final int bottom = top + labels.size() * (barHeight + 8);
            sb.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\" stroke-dasharray=\"4 3\"/>%n",
                x, top - 6, x, bottom));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" %s>%s</text>%n", x,
                bottom + 16, FONT,
                escape(referenceText)));
        }
        return sb.append("</svg>\n").toString();
    }

    /**
     * A horizontal bar chart of ratios on a log scale, bars growing right of 1x (above one) or left of it (below),
     * so that 2x and 0.5x look equally far from parity.
     *
     * @param title  the chart's title.
     * @param labels one label per bar.
     * @param ratios the ratios (positive).
     * @return the SVG document.
     */
    static String ratios(final String title, final List<String> labels, final double[] ratios) {
        final int left = 300;
        final int right = 70;
        final int barHeight = 22;
        final int top = 40;
        final int height = top + labels.size() * (barHeight + 8) + 34;
        double lo = 0.5;
        double hi = 2;
        for (final double v : ratios) {
            if (v > 0 && Double.isFinite(v)) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        final double minExp = Math.floor(Math.log10(lo));
        final double maxExp = Math.ceil(Math.log10(hi));
        final double scale = (WIDTH - left - right) / (maxExp - minExp);
        final double one = left - minExp * scale;
        final StringBuilder sb = header(WIDTH, height, title);
        final int bottom = top + labels.size() * (barHeight + 8);
        for (double e = minExp; e <= maxExp; e++) {
            final double x = left + (e - minExp) * scale;
            sb.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"%s/>%n", x, top - 6, x,
                bottom, e == 0 ? "#444" : "#ddd", e == 0 ? " stroke-dasharray=\"4 3\"" : ""));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" %s>%sx</text>%n", x,
                bottom + 16, FONT,
                trim(Math.pow(10, e))));
        }
        for (int i = 0; i < labels.size(); i++) {
            final int y = top + i * (barHeight + 8);
            final double v = ratios[i] > 0 && Double.isFinite(ratios[i]) ? ratios[i] : 1;
            final double x = left + (Math.log10(v) - minExp) * scale;
            final double x0 = Math.min(one, x);
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" %s>%s</text>%n", left - 8,
                y + 15, FONT,
                escape(labels.get(i))));
            sb.append(String.format(Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n", x0, y,
                Math.max(1, Math.abs(x - one)), barHeight, v >= 1 ? COLOURS[0] : COLOURS[1]));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" %s>%s</text>%n", Math.max(one, x) + 6,
                y + 15, FONT,
                escape(String.format(Locale.ROOT, "%.2fx", ratios[i]))));
        }
        sb.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" %s>log scale; blue: tradestore faster, orange: "
            + "DuckDB faster</text>%n", left + (WIDTH - left - right) / 2, bottom + 32, FONT));
        return sb.append("</svg>\n").toString();
    }

    /**
     * A latency-by-percentile plot, one line per series.
     *
     * @param title       the chart's title.
     * @param names       series names.
     * @param percentiles per series, the percentiles (0..100, below 100) of its points, ascending.
     * @param millis      per series, the latency at each percentile in milliseconds.
     * @return the SVG document.
     */
    static String percentiles(final String title, final List<String> names, final List<double[]> percentiles,
        final List<double[]> millis) {
        final int left = 70;
        final int right = 30;
        final int top = 40;
        final int plotHeight = 300;
        final int height = top + plotHeight + 70 + 18 * names.size();
        final double maxX = 5; // 99.999%
        double maxY = 0;
        for (final double[] m : millis) {
            for (final double v : m) {
                maxY = Math.max(maxY, v);
            }
        }
        maxY = niceCeiling(maxY <= 0 ? 1 : maxY);
        final double sx = (WIDTH - left - right) / maxX;
        final double sy = plotHeight / maxY;
        final StringBuilder sb = header(WIDTH, height, title);
        final int bottom = top + plotHeight;
        sb.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>%n", left, top,
            WIDTH - left - right, plotHeight));
        final String[] ticks = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        for (int k = 0; k <= 5; k++) {
            final double x = left + k * sx;
            sb.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", x, top, x, bottom));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" %s>%s</text>%n", x,
                bottom + 16, FONT, ticks[k]));
        }
        for (int k = 0; k <= 4; k++) {
            final double v = maxY * k / 4;
            final double y = bottom - v * sy;
            sb.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", left, y,
                WIDTH - right, y));
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" %s>%s</text>%n",
                left - 6, y + 4, FONT,
                trim(v)));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" %s>percentile</text>%n",
            left + (WIDTH - left - right) / 2, bottom + 34, FONT));
        sb.append(String.format(Locale.ROOT,
            "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\" %s>latency ms"
            + "</text>%n", top + plotHeight / 2, top + plotHeight / 2, FONT));
        for (int s = 0; s < names.size(); s++) {
            final double[] p = percentiles.get(s);
            final double[] m = millis.get(s);
            final StringBuilder points = new StringBuilder();
            for (int i = 0; i < p.length; i++) {
                final double x = left + Math.min(maxX, Math.log10(1 / (1 - p[i] / 100))) * sx;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, bottom - m[i] * sy));
            }
            final String colour = COLOURS[s % COLOURS.length];
            sb.append(String.format(Locale.ROOT,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n", colour,
                points.toString().trim()));
            final int ly = bottom + 54 + 18 * s;
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>%n",
                left, ly - 4, colour));
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" %s>%s</text>%n", left + 20, ly, FONT,
                escape(names.get(s))));
        }
        return sb.append("</svg>\n").toString();
    }

    private static StringBuilder header(final int width, final int height, final String title) {
        final StringBuilder sb = new StringBuilder(4096);
        sb.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n", width,
            height, width, height));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        sb.append(String.format(Locale.ROOT,
            "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"15\" "
            + "font-weight=\"bold\">%s</text>%n", width / 2, escape(title)));
        return sb;
    }

    /** @return the smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code v}. */
    static double niceCeiling(final double v) {
        final double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (final double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String trim(final double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
            : new java.math.BigDecimal(String.format(Locale.ROOT, "%.3g", v)).stripTrailingZeros().toPlainString();
    }

    static String escape(final String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
