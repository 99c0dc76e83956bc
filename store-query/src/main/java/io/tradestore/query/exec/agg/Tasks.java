package io.tradestore.query.exec.agg;

/**
 * Runs a number of independent tasks, on the calling thread and possibly on others: the way the last steps of a query
 * (made after its workers are done) use the query's threads.
 */
public interface Tasks {
    /** Every task on the calling thread, in order. */
    Tasks SERIAL = new Tasks() {
        @Override
        public int workers() {
            return 1;
        }

        @Override
        public void run(final int count, final Body body) {
            for (int i = 0; i < count; i++) {
                body.run(0, i);
            }
        }
    };

    /** One task. */
    @FunctionalInterface
    interface Body {
        /** @param worker the thread's index, below {@link #workers()}, unique among those running at once. @param task
         * the task. */
        void run(int worker, int task);
    }

    /** @return the most threads that run tasks at once. */
    int workers();

    /**
     * Runs tasks {@code 0 .. count - 1}, each once, and returns when all have run.
     *
     * @param count how many. @param body the work of one task.
     */
    void run(int count, Body body);
}
