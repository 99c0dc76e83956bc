package io.tradestore.server.cli;

/** Runs the CLI as {@code java -jar} does and prints, as the JVM exits, whether chronicle's analytics were left off. */
public final class AnalyticsProbeMain {
    private AnalyticsProbeMain() {
    }

    /**
     * Entry point of the child JVM.
     *
     * @param args the CLI's arguments.
     */
    public static void main(final String[] args) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println(
            "analytics property: " + System.getProperty(TradestoreCli.CHRONICLE_ANALYTICS))));
        TradestoreCli.main(args);
    }
}
