package io.tradestore.parquet;

import java.nio.file.Path;

import io.tradestore.core.Store;

/** A child JVM's export, for {@link KillDuringExportTest}: {@code STORE TABLE OUT}; prints "started" first. */
public final class ExportChild {
    private ExportChild() {
    }

    /** @param args store directory, table, export directory. */
    public static void main(final String[] args) {
        try (Store store = Store.open(Path.of(args[0]))) {
            System.out.println("started");
            System.out.flush();
            ParquetExport.export(store.table(args[1]), ExportOptions.defaults(Path.of(args[2])).withIncludeOpen(true));
            System.out.println("done");
        }
    }
}
