package io.tradestore.server.http;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * {@code .ci/run} installs) against a served store of generated trades: the page loads with no console error (a
 * Content-Security-Policy violation is one), the table browser lists the table, a typed query's numbers are the
 * engine's, bars are drawn as candles, 100,000 rows scroll in a grid that keeps only the rows in view, and an error is
 * marked where the query has it.
 */
class ConsoleBrowserTest {
    private static final int ROWS = 120_000;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;
    private static QueryServer server;
    /** The engine, except that SQL naming venue 'SLOW' runs until the server cancels it. */
    private static UntilCancelled slow;
    private static ChromeDriver driver;
    private static String base;

    @BeforeAll
    static void start() {
        TestStores.writeTrades(dir, ROWS, 11);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
        slow = new UntilCancelled(QueryService.of(engine));
        server = QueryServer.start(store, slow,
            new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 60_000, null));
        base = "http://127.0.0.1:" + server.port();
        driver = chromium();
    }

    /** @return Chromium, headless, through the chromedriver on the PATH (or where CHROMEDRIVER says). */
    static ChromeDriver chromium() {
        final String driverPath = System.getenv().getOrDefault("CHROMEDRIVER", "/usr/bin/chromedriver");
        final String browser = System.getenv().getOrDefault("CHROMIUM", Files.isExecutable(
            Path.of("/usr/lib/chromium/chromium")) ? "/usr/lib/chromium/chromium" : "/usr/bin/chromium");
        assertThat(Path.of(driverPath)).as("chromedriver: install Debian's chromium and chromium-driver (.ci/run does)")
            .isExecutable();
        assertThat(Path.of(browser)).as("chromium: install Debian's chromium (.ci/run does)").isExecutable();
        final ChromeOptions o = new ChromeOptions();
        o.setBinary(browser);
        o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
            "--window-size=1400,900", "--user-data-dir=" + dir.resolve("chromium-profile"));
        final java.util.logging.Level all = Level.ALL;
        o.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, all.getName()));
        o.setExperimentalOption("prefs", Map.of("download.default_directory", downloads().toString(),
            "download.prompt_for_download", false));
        final ChromeDriverService service = new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(driverPath)).usingAnyFreePort().build();
        return new ChromeDriver(service, o);
    }

    /** @return where the browser saves downloads. */
    static Path downloads() {
        return dir.resolve("downloads");
    }

    /** Clicks Download CSV and reads the file the browser saves. */
    private List<String> downloadCsv() throws Exception {
        Files.createDirectories(downloads());
        try (java.util.stream.Stream<Path> old = Files.list(downloads())) {
            for (final Path p : (Iterable<Path>) old::iterator) {
                Files.delete(p);
            }
        }
        testId("download").click();
        final Path file = downloads().resolve("tradestore-result.csv");
        until("the download", () -> Files.exists(file) && !Files.exists(downloads().resolve(
            "tradestore-result.csv.crdownload")));
        return Files.readAllLines(file);
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @BeforeEach
    void open() {
        driver.get(base + "/");
        ((JavascriptExecutor) driver).executeScript("localStorage.clear();");
        driver.navigate().refresh();
        until("the page is ready and lists the tables", () -> "true".equals(byId("body").getDomAttribute("data-ready"))
            && "ready".equals(byId("body").getDomAttribute("data-tables")));
    }

    @AfterEach
    void noConsoleErrors() {
        final List<String> severe = new ArrayList<>();
        for (final LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue()) {
                severe.add(e.getMessage());
            }
        }
        assertThat(severe).as("errors in the browser's console").isEmpty();
    }

    private WebElement byId(final String id) {
        return "body".equals(id) ? driver.findElement(By.tagName("body")) : driver.findElement(By.id(id));
    }

    private WebElement testId(final String id) {
        return driver.findElement(By.cssSelector("[data-testid=" + id + "]"));
    }

    private void until(final String what, final java.util.function.BooleanSupplier ready) {
        new WebDriverWait(driver, WAIT).withMessage(what).until(d -> ready.getAsBoolean());
    }

    /** Types a query into the editor, replacing what is there, and runs it with Ctrl+Enter. */
    private void run(final String language, final String text) {
        driver.findElement(By.cssSelector("[data-testid=language] option[value=" + language + "]")).click();
        final WebElement editor = testId("editor");
        editor.click();
        editor.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
        editor.sendKeys(text);
        final String before = testId("stats").getText() + testId("error").getText();
        editor.sendKeys(Keys.chord(Keys.CONTROL, Keys.ENTER));
        until("the query's answer", () -> "false".equals(byId("body").getDomAttribute("data-running"))
            && !(testId("stats").getText() + testId("error").getText()).equals(before));
    }

    private List<List<String>> gridRows() {
        final List<List<String>> rows = new ArrayList<>();
        for (final WebElement row : driver.findElements(By.cssSelector("[data-testid=results] .row"))) {
            final List<String> cells = new ArrayList<>();
            for (final WebElement cell : row.findElements(By.className("cell"))) {
                cells.add(cell.getText());
            }
            rows.add(cells);
        }
        return rows;
    }

    private static List<List<String>> engineRows(final String sql) {
        final QueryResult r = engine.executeSql(sql);
        final List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < r.rowCount(); i++) {
            final List<String> row = new ArrayList<>();
            for (int c = 0; c < r.columns().size(); c++) {
                final Object v = r.value(i, c);
                row.add(v instanceof java.math.BigDecimal b ? b.toPlainString() : String.valueOf(v));
            }
            rows.add(row);
        }
        return rows;
    }

    @Test
    void shouldListTheTablesWithTheirColumnsAndTypes() {
        final WebElement trades = driver.findElement(By.cssSelector("[data-testid=tables] li[data-table=trades]"));
        assertThat(trades.findElement(By.className("table-facts")).getText()).startsWith("120,000 rows");
        final List<String> columns = new ArrayList<>();
        for (final WebElement c : trades.findElements(By.cssSelector("li.column"))) {
            columns.add(c.getText().replaceAll("\\s+", " "));
        }
        assertThat(columns).containsExactly("trade_id i64", "ts timestamp", "client_id i64", "venue symbol",
            "instrument symbol", "side char", "price decimal(6)", "quantity i64");
        // a click puts the column's name where the cursor is
        final WebElement editor = testId("editor");
        editor.click();
        editor.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE, "SELECT  FROM trades", Keys.HOME);
        for (int i = 0; i < 7; i++) {
            editor.sendKeys(Keys.ARROW_RIGHT);
        }
        trades.findElement(By.cssSelector("li.column[data-column=price]")).click();
        assertThat(editor.getDomProperty("value")).isEqualTo("SELECT price FROM trades");
    }

    @Test
    void shouldShowTheEngineNumbersOfATypedQuery() throws Exception {
        final String sql = "SELECT venue, count(*) AS n, sum(price * quantity) AS notional, avg(price) AS ap"
            + " FROM trades GROUP BY venue ORDER BY venue";
        run("sql", sql);
        assertThat(testId("error").isDisplayed()).isFalse();
        assertThat(gridRows()).isEqualTo(engineRows(sql));
        // numbers right-aligned, decimals with every digit of their scale
        final WebElement notional = driver.findElements(By.cssSelector("[data-testid=results] .row .cell")).get(2);
        assertThat(notional.getDomAttribute("class")).contains("num");
        assertThat(notional.getText()).matches("\\d+\\.\\d{6}");
        assertThat(testId("stats").getText()).contains("4 rows").contains("120,000 rows scanned");
        // the history keeps it
        assertThat(driver.findElements(By.cssSelector("[data-testid=history] option")).get(1).getText())
            .startsWith("SQL: SELECT venue");
        // the download is the answer shown
        final List<String> csv = downloadCsv();
        assertThat(csv).hasSize(5);
        assertThat(csv.get(0)).isEqualTo("venue,n,notional,ap");
        for (int i = 0; i < 4; i++) {
            assertThat(csv.get(i + 1)).isEqualTo(String.join(",", gridRows().get(i)));
        }
        // one text key and numbers: bars, one click away
        testId("show-chart").click();
        assertThat(testId("chart").getDomAttribute("data-kind")).isEqualTo("bar");
        assertThat(drawnPixels()).isGreaterThan(1000);
        // a time column and numbers: lines
        run("sql", "SELECT date_trunc('hour', ts) AS hour, count(*) AS n, max(quantity) AS q FROM trades"
            + " GROUP BY hour ORDER BY hour");
        testId("show-chart").click();
        assertThat(testId("chart").getDomAttribute("data-kind")).isEqualTo("line");
        assertThat(drawnPixels()).isGreaterThan(1000);
    }

    /** @return how many pixels of the chart's canvas are drawn on. */
    private long drawnPixels() {
        return ((Number) ((JavascriptExecutor) driver).executeScript(
            "const c = document.querySelector('[data-testid=chart] canvas');"
                + "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                + "let n = 0;"
                + "for (let i = 3; i < d.length; i += 4) { if (d[i] > 0) n++; }"
                + "return n;")).longValue();
    }

    @Test
    void shouldDrawBarsAsCandlesWithVolume() {
        run("sql", "SELECT date_trunc('minute', ts) AS minute, first(price) AS open, max(price) AS high,"
            + " min(price) AS low, last(price) AS close, sum(quantity) AS volume FROM trades"
            + " WHERE instrument = 'SYM007' GROUP BY minute ORDER BY minute");
        final WebElement chart = testId("chart");
        until("the chart", chart::isDisplayed);
        assertThat(chart.getDomAttribute("data-kind")).isEqualTo("candlestick");
        // the canvas holds candles going up (green) and down (red)
        final Object drawn = ((JavascriptExecutor) driver).executeScript(
            "const c = document.querySelector('[data-testid=chart] canvas');"
                + "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                + "let up = 0, down = 0;"
                + "for (let i = 0; i < d.length; i += 4) {"
                + "  if (d[i + 3] > 0 && d[i + 1] > d[i] + 60 && d[i + 1] > d[i + 2] + 30) up++;"
                + "  if (d[i + 3] > 0 && d[i] > d[i + 1] + 60 && d[i] > d[i + 2] + 60) down++;"
                + "}"
                + "return [up, down];");
        assertThat((List<?>) drawn).allSatisfy(n -> assertThat(((Number) n).longValue()).isGreaterThan(50));
        // the grid holds the same bars
        testId("show-grid").click();
        assertThat(testId("results").getDomAttribute("data-rows")).isEqualTo(String.valueOf(engine.executeSql(
            "SELECT date_trunc('minute', ts) AS minute, count(*) AS n FROM trades WHERE instrument = 'SYM007'"
                + " GROUP BY minute LIMIT 100000").rowCount()));
    }

    @Test
    void shouldScrollAHundredThousandRowsKeepingOnlyTheRowsInView() {
        run("sql", "SELECT trade_id, ts, price FROM trades LIMIT 100000");
        assertThat(testId("results").getDomAttribute("data-rows")).isEqualTo("100000");
        assertThat(driver.findElements(By.cssSelector("[data-testid=results] .row"))).hasSizeLessThan(200);
        ((JavascriptExecutor) driver).executeScript(
            "const b = document.getElementById('grid-body'); b.scrollTop = b.scrollHeight;");
        until("the last row in view", () -> !driver.findElements(By.cssSelector(".row[data-row='99999']")).isEmpty());
        final List<List<String>> rows = gridRows();
        assertThat(rows.get(rows.size() - 1).get(0)).isEqualTo("100000");
        assertThat(driver.findElements(By.cssSelector("[data-testid=results] .row"))).hasSizeLessThan(200);
    }

    @Test
    void shouldDownloadEveryRowOfAnAnswerCutShort() throws Exception {
        run("sql", "SELECT trade_id, price FROM trades");
        assertThat(testId("stats").getText()).contains("10,000 rows (truncated)");
        final List<String> csv = downloadCsv();
        assertThat(testId("download").getDomAttribute("data-source")).isEqualTo("server");
        assertThat(csv).hasSize(ROWS + 1);
        assertThat(csv.get(0)).isEqualTo("trade_id,price");
        assertThat(csv.get(1)).isEqualTo(String.join(",", gridRows().get(0)));
        assertThat(csv.get(ROWS)).startsWith(ROWS + ",");
    }

    @Test
    void shouldMarkAnErrorWhereTheQueryHasIt() {
        run("sql", "SELECT venue,\n  sum(qty) AS q\nFROM trades GROUP BY venue");
        assertThat(testId("error").getText()).contains("UNKNOWN_COLUMN").contains("line 2, column 7");
        assertThat(testId("error-mark").getText()).isEqualTo("qty");
        // JSON: the value at the error's path
        run("json", "{\"table\": \"trades\",\n \"aggs\": [{\"name\": \"n\", \"op\": \"count\"},\n"
            + "  {\"name\": \"s\", \"op\": \"sum\", \"col\": \"qty\"}]}");
        assertThat(testId("error").getText()).contains("/aggs/1/col");
        assertThat(testId("error-mark").getText()).isEqualTo("\"qty\"");
        // the browser logs each 400 as a failed load; nothing else may be there
        for (final LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() < Level.SEVERE.intValue()) {
                continue;
            }
            assertThat(e.getMessage()).matches(".*/v1/(sql|query)(\\?queryId=\\w+)? - Failed to load resource: "
                + "the server responded with a status of 400 \\(Bad Request\\)");
        }
    }

    @Test
    void shouldCancelARunningQueryOnTheServer() throws Exception {
        driver.findElement(By.cssSelector("[data-testid=language] option[value=sql]")).click();
        final WebElement editor = testId("editor");
        editor.click();
        editor.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE, "SELECT count(*) FROM trades WHERE venue = 'SLOW'");
        testId("run").click();
        assertThat(slow.started.await(30, TimeUnit.SECONDS)).as("the query started").isTrue();
        assertThat(testId("run").isEnabled()).isFalse();
        testId("cancel").click();
        until("the cancel shown", () -> testId("error").getText().contains("cancelled"));
        // the page dropped its request: the server saw the connection close and stopped the query
        assertThat(slow.cancelled.await(30, TimeUnit.SECONDS)).as("the server cancelled it").isTrue();
        assertThat(testId("run").isEnabled()).isTrue();
    }

    @Test
    void shouldTakeAScreenshotOfADayOfBars() throws Exception {
        // a tool, not a check: docs/img/console.png comes from a demo store (docs/console.md says how)
        final String url = System.getProperty("tradestore.console.url");
        final String shot = System.getProperty("tradestore.console.screenshot");
        Assumptions.assumeTrue(url != null && shot != null, "only with -Dtradestore.console.url and .screenshot");
        driver.get(url);
        until("the page", () -> !driver.findElements(By.cssSelector("[data-testid=tables] li.column")).isEmpty());
        run("sql", System.getProperty("tradestore.console.sql"));
        until("the chart", () -> testId("chart").isDisplayed());
        Thread.sleep(500);
        final Path out = Path.of(shot);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), out, StandardCopyOption.REPLACE_EXISTING);
    }
}
