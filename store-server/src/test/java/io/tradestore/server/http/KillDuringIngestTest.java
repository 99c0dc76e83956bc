package io.tradestore.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.server.ChildJvm;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server killed with SIGKILL while a client streams requests of line protocol: after a restart every request that
 * got its 204 is present whole, and no request is present in part.
 */
class KillDuringIngestTest {
    private static final int ROWS_PER_REQUEST = 2_000;
    private static final long FIRST_ID = 1_000_000;

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryAnsweredRequestWholeAndNoneInPartAfterSigkill() throws Exception {
        TestStores.writeTrades(dir, TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1 << 13, 1 << 10), 10, 1);
        final Set<Integer> answered = new HashSet<>();
        final AtomicBoolean stop = new AtomicBoolean();
        try (ChildJvm child = ChildJvm.start("serve", dir.toString(), "--port", "0", "--pg-port", "-1")) {
            final int port = child.awaitPort();
            final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            final CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                for (int r = 0; !stop.get(); r++) {
                    final StringBuilder body = new StringBuilder(ROWS_PER_REQUEST * 120);
                    for (int i = 0; i < ROWS_PER_REQUEST; i++) {
                        final long id = FIRST_ID + (long) r * ROWS_PER_REQUEST + i;
                        body.append("trades,venue=XLON,instrument=SYM001,side=B trade_id=").append(id)
                            .append("i,client_id=7i,price=1.5,quantity=1i ").append(TestStores.START_NS + id)
                            .append('\n');
                    }
                    try {
                        final HttpResponse<String> resp = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/write")).timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                            HttpResponse.BodyHandlers.ofString());
                        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(204);
                        synchronized (answered) {
                            answered.add(r);
                        }
                    } catch (final java.io.IOException e) {
                        return; // the server is gone
                    } catch (final InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            });
            // kill once some requests are in, in the middle of the stream
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < until && sizeOf(answered) < 25 && !sender.isDone()) {
                Thread.sleep(10);
            }
            assertThat(sizeOf(answered)).as(child.output()).isGreaterThanOrEqualTo(25);
            ProcessHandle.of(child.pid()).orElseThrow().destroyForcibly();
            assertThat(child.waitFor(30)).isNotZero();
            stop.set(true);
            sender.get(60, TimeUnit.SECONDS);
        }
        final int[] present = new int[100_000];
        int maxRequest = -1;
        try (Store store = Store.open(dir); TableReader reader = store.table("trades").reader()) {
            final TableSnapshot s = reader.snapshot();
            final TradeFlyweight f = new TradeFlyweight().bind(s);
            for (long row = 0; row < s.rowCount(); row++) {
                f.wrap(row);
                if (f.tradeId() >= FIRST_ID) {
                    final int r = (int) ((f.tradeId() - FIRST_ID) / ROWS_PER_REQUEST);
                    present[r]++;
                    maxRequest = Math.max(maxRequest, r);
                }
            }
        }
        synchronized (answered) {
            for (final int r : answered) {
                assertThat(present[r]).as("request %d was answered 204", r).isEqualTo(ROWS_PER_REQUEST);
            }
        }
        for (int r = 0; r <= maxRequest; r++) {
            assertThat(present[r]).as("request %d is whole or absent", r).isIn(0, ROWS_PER_REQUEST);
        }
    }

    private static int sizeOf(final Set<Integer> s) {
        synchronized (s) {
            return s.size();
        }
    }
}
