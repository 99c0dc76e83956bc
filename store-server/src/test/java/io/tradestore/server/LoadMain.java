package io.tradestore.server;

import java.nio.file.Path;
import java.util.List;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;

/**
 * A loader process for {@link LoadWhileServingTest}: loads each CSV file into the trades table, committing every
 * {@code COMMIT_EVERY} rows, with a pause between files so that a server polling meanwhile sees the table grow.
 */
public final class LoadMain {
    /** Rows per commit. */
    public static final int COMMIT_EVERY = 5000;

    private LoadMain() {
    }

    /**
     * Loads.
     *
     * @param args STORE FILE...
     * @throws InterruptedException when interrupted.
     */
    public static void main(final String[] args) throws InterruptedException {
        try (Store store = Store.open(Path.of(args[0]))) {
            final Table t = store.table(TradesSchema.SCHEMA.name());
            for (int i = 1; i < args.length; i++) {
                CsvLoader.load(t, List.of(Path.of(args[i])), LoadOptions.defaults().withCommitEvery(COMMIT_EVERY), null);
                Thread.sleep(50); // pacing, not synchronisation: lets the polling server see each file's commits
            }
        }
        System.out.println("loaded");
    }
}
