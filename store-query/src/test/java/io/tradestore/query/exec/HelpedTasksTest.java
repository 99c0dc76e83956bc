package io.tradestore.query.exec;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The calling thread and pool helpers run every task once, each worker index on one thread at a time; a pool too busy
 * to lend a thread, or shut down, leaves every task to the calling thread instead of blocking it; a task's failure
 * reaches the caller.
 */
class HelpedTasksTest {
    @Test
    void shouldRunEveryTaskOnceWithWorkersNeverShared() throws Exception {
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            final HelpedTasks tasks = new HelpedTasks(pool, 3);
            for (int round = 0; round < 50; round++) {
                final int count = 1 + round * 37;
                final AtomicIntegerArray runs = new AtomicIntegerArray(count);
                final AtomicBoolean[] busy = new AtomicBoolean[tasks.workers()];
                for (int w = 0; w < busy.length; w++) {
                    busy[w] = new AtomicBoolean();
                }
                final AtomicBoolean shared = new AtomicBoolean();
                tasks.run(count, (worker, task) -> {
                    if (!busy[worker].compareAndSet(false, true)) {
                        shared.set(true);
                    }
                    runs.incrementAndGet(task);
                    Thread.onSpinWait();
                    busy[worker].set(false);
                });
                for (int i = 0; i < count; i++) {
                    assertThat(runs.get(i)).as("task %d of %d", i, count).isEqualTo(1);
                }
                assertThat(shared).isFalse();
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void shouldRunEverythingOnTheCallerWhenThePoolLendsNoThread() throws Exception {
        final ExecutorService pool = Executors.newSingleThreadExecutor();
        final CountDownLatch release = new CountDownLatch(1);
        try {
            pool.submit(() -> {
                release.await(); // the pool's only thread is busy until the tasks are done
                return null;
            });
            final AtomicIntegerArray workers = new AtomicIntegerArray(2);
            new HelpedTasks(pool, 1).run(100, (worker, task) -> workers.incrementAndGet(worker));
            assertThat(workers.get(0)).isEqualTo(100);
            assertThat(workers.get(1)).isZero();
        } finally {
            release.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        final AtomicIntegerArray runs = new AtomicIntegerArray(10);
        new HelpedTasks(pool, 2).run(10, (worker, task) -> runs.incrementAndGet(task)); // shut down: rejected
        for (int i = 0; i < 10; i++) {
            assertThat(runs.get(i)).isEqualTo(1);
        }
    }

    @Test
    void shouldPassATaskFailureToTheCaller() throws Exception {
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            final HelpedTasks tasks = new HelpedTasks(pool, 2);
            assertThatThrownBy(() -> tasks.run(1000, (worker, task) -> {
                if (task == 500) {
                    throw new IllegalArgumentException("task 500");
                }
            })).isInstanceOf(IllegalArgumentException.class).hasMessage("task 500");
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
