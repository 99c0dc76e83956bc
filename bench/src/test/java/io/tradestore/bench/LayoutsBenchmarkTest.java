package io.tradestore.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.LinkedHashSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** A smoke run of the layouts harness on a few rows, so that it cannot rot; it measures nothing worth reading. */
class LayoutsBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunEveryVariantOnATinyTableAndAgreeOnTheNotional() throws Exception {
        final LayoutsBenchmark.Options o =
            LayoutsBenchmark.Options.parse(new String[] {"--rows", "70_001", "--reps", "1",
            "--segment-rows", "65536", "--floor-mib", "8", "--append-runs", "3", "--dir", dir.toString()});
        o.variants = new LinkedHashSet<>(List.of("floor", "objects", "row", "column"));
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final LayoutsBenchmark.Report report = LayoutsBenchmark.run(o, out);
        LayoutsPrinter.print(report, out);
        assertThat(report.results).hasSize(8);
        assertThat(report.floor1GBps).isPositive();
        for (final LayoutsBenchmark.Result r : report.results) {
            assertThat(r.scanMs).as(r.name).isPositive();
            if (r.readOnly) {
                assertThat(r.name).isEqualTo("COLUMN columns read only (no product), 2 threads");
                continue;
            }
            assertThat(r.buy).as(r.name).isEqualTo(report.results.get(0).buy).isPositive();
            assertThat(r.sell).as(r.name).isEqualTo(report.results.get(0).sell).isPositive();
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8))
            .contains("| COLUMN kernel (3 columns) |", "| COLUMN columns read only (no product), 2 threads |",
            "memory-bandwidth floor", "COLUMN append, repetition 3 of 3: 70,001 rows",
            "COLUMN append repeated 3 times: median");
        assertThat(report.appends).hasSize(3).allSatisfy(a -> assertThat(a.ms).isPositive());
        assertThat(LayoutsBenchmark.medianOf(report.appends, a -> a.ms))
            .isBetween(LayoutsBenchmark.msRange(report.appends).getMin(),
            LayoutsBenchmark.msRange(report.appends).getMax());
        // every repetition's table is deleted (and the stores of the layouts)
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void shouldComputeTheSameNotionalAsAPlainLoop() {
        final LayoutsBenchmark.Trade[] trades = new LayoutsBenchmark.Trade[200_000];
        java.math.BigInteger buy = java.math.BigInteger.ZERO;
        java.math.BigInteger sell = java.math.BigInteger.ZERO;
        for (int i = 0; i < trades.length; i++) {
            final long h = LayoutsBenchmark.mix(i);
            trades[i] = new LayoutsBenchmark.Trade(i, 0, 0, "V", "I", LayoutsBenchmark.side(h),
                LayoutsBenchmark.price(h),
                LayoutsBenchmark.quantity(h));
            final java.math.BigInteger p = java.math.BigInteger.valueOf(trades[i].price)
                .multiply(java.math.BigInteger.valueOf(trades[i].quantity));
            if (trades[i].side == 'S') {
                sell = sell.add(p);
            } else {
                buy = buy.add(p);
            }
        }
        final long[] acc = new long[4];
        LayoutsBenchmark.scanObjects(trades, acc);
        assertThat(java.math.BigInteger.valueOf(acc[1]).shiftLeft(64)
            .add(new java.math.BigInteger(Long.toUnsignedString(acc[0]))))
            .isEqualTo(buy);
        assertThat(java.math.BigInteger.valueOf(acc[3]).shiftLeft(64)
            .add(new java.math.BigInteger(Long.toUnsignedString(acc[2]))))
            .isEqualTo(sell);
        assertThat(Set.of('B', 'S')).contains(LayoutsBenchmark.side(LayoutsBenchmark.mix(7)));
    }

    @Test
    void shouldReadEveryByteOfTheKernelsThreeColumns() {
        final int rows = 70_001;
        try (io.tradestore.core.Store store = io.tradestore.core.Store.open(dir)) {
            final io.tradestore.core.Table table = store
                .createTable(io.tradestore.core.flyweight.TradesSchema.SCHEMA.with("t",
                io.tradestore.core.schema.Layout.COLUMN, 65_536, 4_096));
            LayoutsBenchmark.append(table, rows);
            try (io.tradestore.core.TableReader reader = table.reader()) {
                final io.tradestore.core.TableSnapshot snap = reader.snapshot();
                long expected = 0;
                final io.tradestore.core.flyweight.TradeFlyweight f = new io.tradestore.core.flyweight.TradeFlyweight()
                    .bind(snap);
                while (f.next()) {
                    expected += f.price() + f.quantity() + (byte) f.side();
                }
                final long[] acc = new long[4];
                LayoutsBenchmark.readColumns(snap, 0, snap.segmentCount(), acc);
                assertThat(snap.segmentCount()).isEqualTo(2);
                assertThat(acc[0]).isEqualTo(expected);
            }
        }
    }
}
