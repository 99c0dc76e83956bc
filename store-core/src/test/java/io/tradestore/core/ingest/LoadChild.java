package io.tradestore.core.ingest;

import java.nio.file.Path;
import java.util.List;

import io.tradestore.core.Store;

/** A loader process for {@link KillDuringLoadTest}: {@code STORE FILE COMMIT_EVERY}; prints "loading" and "done". */
public final class LoadChild {
    private LoadChild() {
    }

    /**
     * Loads one file into the existing trades table.
     *
     * @param args store directory, CSV file, rows per commit (0: one commit).
     */
    public static void main(final String[] args) {
        try (Store store = Store.open(Path.of(args[0]))) {
            System.out.println("loading");
            System.out.flush();
            CsvLoader.load(store.table("trades"), List.of(Path.of(args[1])),
                LoadOptions.defaults().withThreads(2).withChunkBytes(256 << 10)
                .withCommitEvery(Long.parseLong(args[2])), null);
        }
        System.out.println("done");
        System.out.flush();
    }
}
