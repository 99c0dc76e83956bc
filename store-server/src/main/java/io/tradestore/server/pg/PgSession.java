package io.tradestore.server.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.query.RowStream;
import io.tradestore.query.sql.SqlParameters;

/**
 * One connection's statements once it is ready: the simple query protocol ({@code Q}, several statements in one
 * string) and the extended one (Parse, Bind, Describe, Execute, Sync, Close, Flush), its named and unnamed prepared
 * statements and portals, and PostgreSQL's rule that after an error in an extended batch every message up to the
 * next Sync is skipped. Every statement goes to the catalog first, then to the engine. Runs on one query worker at a
 * time (the connection hands its messages over in batches); only {@link #cancel} is called from other threads.
 *
 * <pre>
 *  Parse ──> statement (text, declared parameter types)           Describe S ──> ParameterDescription, columns
 *  Bind ──> portal (statement + decoded values + result formats)  Describe P ──> plans it, RowDescription
 *  Execute(0) ──> DataRow x n streamed as the engine makes them, CommandComplete
 *  Execute(maxRows) ──> the answer held; DataRow x maxRows, then PortalSuspended (rows left) or CommandComplete
 *  Sync ──> ReadyForQuery (I idle, T in a transaction block, E in a failed one)
 * </pre>
 */
final class PgSession {
    /** Most rows of an engine answer held for a portal read in parts (the largest whole answer over HTTP). */
    static final int HELD_ROWS = 1_000_000;
    private final PgServer.Services services;
    private final PgOutput out;
    /** The session's run-time parameters: SET changes them, SHOW and current_setting read them. */
    private final SessionSettings settings;
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    /** DECLAREd cursors, which outlive the portals of their statements. */
    private final PgCursors cursors = new PgCursors();
    /** An error in an extended batch: messages are skipped up to the next Sync. */
    private boolean skipping;
    /** ReadyForQuery's transaction status: I, T or E. */
    private char transaction = 'I';
    /** The engine statement running now, for a CancelRequest or a disconnect to stop. */
    private volatile QueryCancel running;
    /** A cancel that came while the connection's batch waited for a worker: its first statement stops at once. */
    private volatile boolean cancelPending;
    /** When the batch being run was handed to the workers: its first statement's time runs from then. */
    private long batchQueuedNs;

    /** A prepared statement. */
    private static final class Prepared {
        final String sql;
        final int[] types;
        final boolean empty;

        Prepared(final String sql, final int[] types) {
            this.sql = sql;
            this.types = types;
            this.empty = PgStatements.isEmpty(sql);
        }
    }

    /** A bound statement. */
    private static final class Portal {
        final Prepared statement;
        final PgParameters parameters;
        final short[] resultFormats;
        /** The catalog's answer, or the engine's held for an Execute with a row limit; null until run. */
        PgRows rows;
        /** An engine statement's columns, once Describe found it is one (planned, not run). */
        List<PgColumn> columns;
        /** The CommandComplete tag of an answer streamed whole: the portal is done. */
        String streamedTag;
        boolean done;

        Portal(final Prepared statement, final PgParameters parameters, final short[] resultFormats) {
            this.statement = statement;
            this.parameters = parameters;
            this.resultFormats = resultFormats;
        }
    }

    PgSession(final PgServer.Services services, final PgOutput out, final SessionSettings settings) {
        this.services = services;
        this.out = out;
        this.settings = settings;
    }

    /** ReadyForQuery, after a ParameterStatus for each reported parameter the batch changed, as PostgreSQL 15 does. */
    private void readyForQuery() {
        for (final Map.Entry<String, String> e : settings.changedReported().entrySet()) {
            out.parameterStatus(e.getKey(), e.getValue());
        }
        out.readyForQuery(transaction);
    }

    /**
     * Stops the statement running now, or the next one when the batch is still waiting for a worker.
     *
     * @param code    the code it fails with.
     * @param message what its client is told.
     * @param pending whether the connection has a batch queued or running (else a cancel has nothing to stop).
     */
    void cancel(final ErrorCode code, final String message, final boolean pending) {
        final QueryCancel c = running;
        if (c != null) {
            c.cancel(code, message);
        } else if (pending) {
            cancelPending = true;
        }
    }

    /** @param queuedNs when the batch about to run was handed to the workers. */
    void batchStarts(final long queuedNs) {
        this.batchQueuedNs = queuedNs;
    }

    /** The batch is done: a cancel from now on has nothing to stop. */
    void batchEnds() {
        cancelPending = false;
    }

    /**
     * Handles one message.
     *
     * @param f the message.
     * @return false when the connection must close (Terminate, or a FATAL error written).
     */
    boolean handle(final PgFrame f) {
        if (skipping && f.type() != 'S' && f.type() != 'X') {
            return true;
        }
        final PgReader in = new PgReader(f.body());
        try {
            switch (f.type()) {
                case 'Q':
                    query(in);
                    return true;
                case 'P':
                    parse(in);
                    return true;
                case 'B':
                    bind(in);
                    return true;
                case 'D':
                    describe(in);
                    return true;
                case 'E':
                    execute(in);
                    return true;
                case 'C':
                    close(in);
                    return true;
                case 'S':
                    skipping = false;
                    if (transaction == 'I') {
                        portals.clear(); // the implicit transaction ends, and its portals with it
                    }
                    readyForQuery();
                    out.flush();
                    return true;
                case 'H':
                    out.flush();
                    return true;
                case 'X':
                    return false;
                case 'd':
                case 'c':
                case 'f':
                    return true; // copy messages outside COPY are ignored, as PostgreSQL does
                case 'F':
                    out.error(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "the function call protocol is not "
                        + "supported; run SQL"));
                    readyForQuery();
                    return true;
                default:
                    // 'p' (a password) once the session is ready
                    out.error(PgError.fatal(PgError.PROTOCOL_VIOLATION, "unexpected message type '" + f.type()
                        + "' in a ready session"));
                    return false;
            }
        } catch (final PgFailure e) {
            extendedError(e.error());
            return !e.error().severity().equals("FATAL");
        }
    }

    /** An error in an extended-protocol message: answered, then everything up to Sync is skipped. */
    private void extendedError(final PgError e) {
        out.error(e);
        skipping = true;
        if (transaction == 'T') {
            transaction = 'E';
        }
    }

    // ------------------------------------------------------------------------------------------- simple query

    private void query(final PgReader in) {
        final String sql;
        try {
            sql = in.cstring();
            in.end();
        } catch (final PgFailure e) {
            out.error(e.error());
            readyForQuery();
            out.flush();
            return;
        }
        simpleQuery(sql);
    }

    private void simpleQuery(final String sql) {
        final List<PgStatements.Statement> list = PgStatements.split(sql);
        for (final PgStatements.Statement s : list) {
            if (PgStatements.isEmpty(s.text())) {
                out.begin('I').end(); // EmptyQueryResponse
                continue;
            }
            final long startNs = System.nanoTime();
            try {
                final PgRows rows = catalog(s.text(), PgParameters.NONE, s.offset());
                if (rows == null) {
                    final long[] counts = stream(s.text(), PgParameters.NONE, s.offset(), new short[0], true);
                    out.commandComplete("SELECT " + counts[0]);
                    services.workers().statementDone(200, System.nanoTime() - startNs, counts[1], counts[2]);
                    continue;
                }
                if (rows.hasRows()) {
                    final short[] text = new short[rows.columns().size()];
                    out.rowDescription(rows.columns(), text);
                    rows.write(out, text, 0);
                }
                if (rows.empty()) {
                    out.begin('I').end();
                } else {
                    out.commandComplete(rows.tag());
                }
                services.workers().statementDone(200, System.nanoTime() - startNs, rows.scanned(), rows.matched());
            } catch (final PgFailure e) {
                services.workers().statementDone(e.error().httpStatus(), System.nanoTime() - startNs, 0, 0);
                out.error(e.error());
                if (transaction == 'T') {
                    transaction = 'E';
                }
                break; // the rest of the string is not run, as PostgreSQL does
            }
        }
        readyForQuery();
        out.flush();
    }

    /**
     * Answers a statement from the catalog when it is the catalog's (and refuses any in a failed transaction block).
     *
     * @param sql        the statement.
     * @param parameters its values.
     * @param offset     where it starts in the query string (for error positions).
     * @return its rows, or null when the engine runs it.
     * @throws PgFailure its error.
     */
    private PgRows catalog(final String sql, final PgParameters parameters, final int offset) {
        if (transaction == 'E' && !endsTransaction(sql)) {
            throw new PgFailure(PgError.of(PgError.IN_FAILED_TRANSACTION, "current transaction is aborted, "
                + "commands ignored until end of transaction block"));
        }
        try {
            if (PgCursors.isCursorStatement(sql)) {
                return cursors.run(sql, parameters, offset, transaction == 'T', this::cursorRows);
            }
            final PgAnswer answer = services.catalog().answer(sql, parameters.texts(), settings);
            if (answer != null) {
                transactionTag(answer.commandTag(), sql);
                return PgRows.of(answer);
            }
            if (firstWord(sql).equals("deallocate")) {
                return PgRows.of(deallocate(sql));
            }
            return null;
        } catch (final QueryException e) {
            throw new PgFailure(PgError.of(e, sql, offset));
        } catch (final PgFailure e) {
            throw e;
        } catch (final RuntimeException | StackOverflowError e) {
            throw new PgFailure(PgError.internal(e));
        }
    }

    /**
     * Runs an engine statement and writes its rows as DataRows while the engine produces them (a scan of any length,
     * held in the server only a batch and two socket buffers at a time), after its RowDescription if asked.
     *
     * @param sql        the statement.
     * @param parameters its values.
     * @param offset     where it starts in the query string.
     * @param asked      the Bind's result formats (none: text).
     * @param describe   whether to write the RowDescription first (the simple query protocol).
     * @return rows written, rows scanned and rows matched.
     * @throws PgFailure its error (after the rows written so far, as PostgreSQL reports a failure mid-answer).
     */
    private long[] stream(final String sql, final PgParameters parameters, final int offset, final short[] asked,
        final boolean describe) {
        final long[] counts = new long[3];
        final short[][] formats = {null};
        out.pace(true);
        try {
            engine(sql, parameters, offset, batch -> {
                final PgRows part = PgRows.of(batch);
                if (formats[0] == null) {
                    try {
                        formats[0] = formats(asked, part.columns());
                    } catch (final PgFailure e) {
                        throw new Stop(e);
                    }
                    if (describe) {
                        out.rowDescription(part.columns(), formats[0]);
                    }
                }
                part.write(out, formats[0], 0);
                counts[0] += batch.rowCount();
                counts[1] += part.scanned();
                counts[2] += part.matched();
                out.flush();
            });
        } finally {
            out.pace(false);
        }
        return counts;
    }

    /** A cursor's query, answered by the catalog or the engine, held whole. */
    private PgRows cursorRows(final String sql, final PgParameters parameters, final int offset) {
        final PgRows rows = catalog(sql, parameters, offset);
        return rows != null ? rows : held(sql, parameters, offset);
    }

    /**
     * Runs an engine statement whose portal is read in parts (Execute with a row limit): its answer is held, up to
     * {@link #HELD_ROWS} rows.
     */
    private PgRows held(final String sql, final PgParameters parameters, final int offset) {
        final List<QueryResult> parts = new ArrayList<>();
        final long[] rows = {0};
        engine(sql, parameters, offset, batch -> {
            rows[0] += batch.rowCount();
            if (rows[0] > HELD_ROWS) {
                throw new Stop(new PgFailure(PgError.of(PgError.PROGRAM_LIMIT_EXCEEDED, "a portal read in parts "
                    + "holds at most " + HELD_ROWS + " rows and this answer has more: add LIMIT, or read it whole (an "
                    + "Execute without a row limit, as JDBC does with fetch size 0), which streams every row")));
            }
            parts.add(batch);
        });
        return PgRows.of(parts);
    }

    /**
     * A statement's failure found while its rows are written: it stops the engine as a failed write does, and comes
     * out of it unchanged.
     */
    private static final class Stop extends IOException {
        private static final long serialVersionUID = 1L;
        final transient PgFailure failure;

        Stop(final PgFailure failure) {
            super(failure.error().message());
            this.failure = failure;
        }
    }

    private void engine(final String sql, final PgParameters pgParameters, final int offset, final RowStream rows) {
        final SqlParameters parameters = pgParameters.forEngine();
        final long queued = batchQueuedNs;
        batchQueuedNs = 0;
        final long waitedMs = queued == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queued);
        final long serverMs = services.workers().timeoutMs();
        final long sessionMs = settings.statementTimeoutMs();
        final long timeoutMs = sessionMs > 0 ? Math.min(serverMs, sessionMs + waitedMs) : serverMs;
        final QueryCancel cancel = new QueryCancel();
        running = cancel;
        try {
            if (cancelPending) {
                cancelPending = false;
                cancel.cancel(ErrorCode.TIMEOUT, PgError.CANCELED_BY_USER);
            }
            if (waitedMs >= timeoutMs) {
                throw new QueryException(ErrorCode.TIMEOUT, "the query waited " + waitedMs + " ms for a worker, "
                    + "past the server's limit of " + timeoutMs + " ms", "");
            }
            if (cancel.isCancelled()) {
                throw cancel.failure();
            }
            services.queries().streamSql(sql, parameters, timeoutMs - waitedMs, cancel, rows);
        } catch (final QueryException e) {
            if (e.code() == ErrorCode.TIMEOUT && timeoutMs < serverMs && !PgError.CANCELED_BY_USER.equals(
                e.getMessage())) {
                // the session's statement_timeout stopped it, not the server's limit: say so as PostgreSQL does
                throw new PgFailure(PgError.of(new QueryException(ErrorCode.TIMEOUT,
                    "canceling statement due to statement timeout", ""), sql, offset));
            }
            throw new PgFailure(PgError.of(e, sql, offset));
        } catch (final IOException | UncheckedIOException e) {
            final Throwable why = e instanceof UncheckedIOException ? e.getCause() : e;
            if (why instanceof Stop stop) {
                throw stop.failure;
            }
            // the client went away or stopped reading: the statement stops; the connection is closing
            throw new PgFailure(PgError.of(PgError.CONNECTION_FAILURE, "the client stopped taking the answer"));
        } catch (final PgFailure e) {
            throw e;
        } catch (final RuntimeException | StackOverflowError e) {
            throw new PgFailure(PgError.internal(e));
        } finally {
            running = null;
        }
    }

    /** {@code DEALLOCATE [PREPARE] name | ALL}: the session's prepared statements are the wire layer's to drop. */
    private PgAnswer deallocate(final String sql) {
        final String[] words = sql.strip().replaceAll(";\\s*$", "").split("\\s+");
        int at = 1;
        if (at < words.length && words[at].equalsIgnoreCase("prepare")) {
            at++;
        }
        if (at != words.length - 1) {
            throw new PgFailure(PgError.of(PgError.SYNTAX_ERROR, "write DEALLOCATE name or DEALLOCATE ALL"));
        }
        final String name = words[at];
        if (name.equalsIgnoreCase("all")) {
            statements.clear();
            return new PgAnswer("DEALLOCATE ALL", List.of(), List.of());
        }
        final String unquoted = name.length() > 1 && name.startsWith("\"") && name.endsWith("\"")
            ? name.substring(1, name.length() - 1) : name.toLowerCase(Locale.ROOT);
        if (statements.remove(unquoted) == null && statements.remove(name) == null) {
            throw new PgFailure(PgError.of(PgError.INVALID_SQL_STATEMENT_NAME, "prepared statement \"" + name
                + "\" does not exist"));
        }
        return new PgAnswer("DEALLOCATE", List.of(), List.of());
    }

    private static final java.util.regex.Pattern ROLLBACK_TO = java.util.regex.Pattern.compile(
        "\\s*(rollback|abort)\\s+((work|transaction)\\s+)?to\\b", java.util.regex.Pattern.CASE_INSENSITIVE);

    private static boolean endsTransaction(final String sql) {
        final String first = firstWord(sql);
        return first.equals("rollback") || first.equals("abort") || first.equals("commit") || first.equals("end");
    }

    private void transactionTag(final String tag, final String sql) {
        if (tag.equals("ROLLBACK") && ROLLBACK_TO.matcher(sql).lookingAt()) {
            // ROLLBACK TO SAVEPOINT keeps the block open, and ends its failed state
            transaction = transaction == 'E' ? 'T' : transaction;
            return;
        }
        if (tag.equals("DISCARD ALL")) {
            cursors.closeAll(); // as PostgreSQL's DISCARD ALL does: a pooler hands the connection on
        }
        if (tag.equals("BEGIN") || tag.equals("START TRANSACTION")) {
            transaction = 'T';
            settings.begin();
            cursors.begin();
        } else if (tag.equals("COMMIT") || tag.equals("ROLLBACK")) {
            // a failed block's COMMIT rolls back, its SETs and cursors with it
            final boolean committed = tag.equals("COMMIT") && transaction == 'T';
            settings.end(committed);
            cursors.end(committed);
            transaction = 'I';
        }
    }

    private static String firstWord(final String sql) {
        final String t = sql.strip();
        int end = 0;
        while (end < t.length() && Character.isLetter(t.charAt(end))) {
            end++;
        }
        return t.substring(0, end).toLowerCase(Locale.ROOT);
    }

    // ----------------------------------------------------------------------------------------- extended query

    private void parse(final PgReader in) {
        final String name = in.cstring();
        final String sql = in.cstring();
        final int count = in.int16();
        if (count < 0) {
            throw protocol("a negative parameter type count");
        }
        final int[] declared = new int[count];
        for (int i = 0; i < count; i++) {
            declared[i] = in.int32();
        }
        in.end();
        if (!name.isEmpty() && statements.containsKey(name)) {
            throw new PgFailure(PgError.of(PgError.DUPLICATE_PREPARED_STATEMENT, "prepared statement \"" + name
                + "\" already exists"));
        }
        if (PgStatements.split(sql).size() > 1) {
            throw new PgFailure(PgError.of(PgError.SYNTAX_ERROR, "cannot insert multiple commands into a prepared "
                + "statement"));
        }
        final int placeholders = PgStatements.placeholders(sql);
        if (placeholders > 65_535) {
            throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "placeholders are $1 to $65535"));
        }
        final int[] types = java.util.Arrays.copyOf(declared, Math.max(count, placeholders));
        statements.put(name, new Prepared(sql, types));
        out.begin('1').end(); // ParseComplete
    }

    private void bind(final PgReader in) {
        final String portal = in.cstring();
        final String name = in.cstring();
        final Prepared p = statement(name);
        final short[] paramFormats = readFormats(in);
        final int count = in.int16();
        if (count != p.types.length) {
            throw protocol("bind message supplies " + count + " parameters, but prepared statement \"" + name
                + "\" requires " + p.types.length);
        }
        if (paramFormats.length != 0 && paramFormats.length != 1 && paramFormats.length != count) {
            throw protocol("bind message has " + paramFormats.length + " parameter formats but " + count
                + " parameters");
        }
        final byte[][] raw = new byte[count][];
        for (int i = 0; i < count; i++) {
            raw[i] = in.bytes();
        }
        final short[] resultFormats = readFormats(in);
        in.end();
        final short[] each = new short[count];
        for (int i = 0; i < count; i++) {
            each[i] = paramFormats.length == 0 ? 0 : paramFormats[paramFormats.length == 1 ? 0 : i];
        }
        portals.put(portal, new Portal(p, PgParameters.decode(p.types, each, raw), resultFormats));
        out.begin('2').end(); // BindComplete
    }

    /** @return format codes (each 0 or 1) of a Bind message. */
    private static short[] readFormats(final PgReader in) {
        final int n = in.int16();
        if (n < 0) {
            throw protocol("a negative format count");
        }
        final short[] f = new short[n];
        for (int i = 0; i < n; i++) {
            f[i] = (short) in.int16();
            if (f[i] != 0 && f[i] != 1) {
                throw protocol("format code " + f[i] + " is neither 0 (text) nor 1 (binary)");
            }
        }
        return f;
    }

    private void describe(final PgReader in) {
        final int kind = in.int8();
        final String name = in.cstring();
        in.end();
        if (kind == 'S') {
            final Prepared p = statement(name);
            final SqlParameters describing = SqlParameters.describing();
            final List<PgColumn> columns = describeStatement(p, describing);
            out.begin('t').int16(p.types.length);
            for (int i = 0; i < p.types.length; i++) {
                out.int32(p.types[i] != 0 ? p.types[i] : inferred(describing.kind(i)).oid());
            }
            out.end();
            if (columns.isEmpty()) {
                out.begin('n').end(); // NoData
            } else {
                out.rowDescription(columns, new short[columns.size()]);
            }
        } else if (kind == 'P') {
            final Portal portal = portal(name);
            if (portal.statement.empty) {
                out.begin('n').end();
                return;
            }
            if (portal.rows == null && portal.columns == null) {
                portal.rows = catalog(portal.statement.sql, portal.parameters, 0);
                if (portal.rows == null) {
                    // planned, not run: Execute streams it
                    portal.columns = engineColumns(portal);
                }
            }
            final List<PgColumn> columns = portal.rows != null ? portal.rows.columns() : portal.columns;
            if (!columns.isEmpty()) {
                out.rowDescription(columns, formats(portal.resultFormats, columns));
            } else {
                out.begin('n').end();
            }
        } else {
            throw protocol("Describe takes 'S' or 'P', not " + kind);
        }
    }

    /** @return a statement's columns, found once (the catalog's answer or the engine's plan) and kept. */
    private List<PgColumn> describeStatement(final Prepared p, final SqlParameters describing) {
        if (p.empty) {
            return List.of();
        }
        if (PgCursors.isCursorStatement(p.sql)) {
            return cursors.describe(p.sql);
        }
        try {
            // a copy: describing a SET must not set anything
            final PgAnswer answer = services.catalog().answer(p.sql, PgParameters.unbound(p.types.length).texts(),
                settings.copy());
            if (answer != null) {
                return answer.columns();
            }
            // planned, not run: a client describes a statement once, before it executes it many times
            return PgRows.columns(services.queries().describeSql(p.sql, describing));
        } catch (final QueryException e) {
            throw new PgFailure(PgError.of(e, p.sql, 0));
        } catch (final PgFailure e) {
            throw e;
        } catch (final RuntimeException | StackOverflowError e) {
            throw new PgFailure(PgError.internal(e));
        }
    }

    /** @return the columns of a portal's engine statement, planned with its values, not run. */
    private List<PgColumn> engineColumns(final Portal portal) {
        try {
            return PgRows.columns(services.queries().describeSql(portal.statement.sql,
                portal.parameters.forEngine()));
        } catch (final QueryException e) {
            throw new PgFailure(PgError.of(e, portal.statement.sql, 0));
        } catch (final RuntimeException | StackOverflowError e) {
            throw new PgFailure(PgError.internal(e));
        }
    }

    private static PgType inferred(final SqlParameters.Kind kind) {
        switch (kind) {
            case INTEGER:
                return PgType.INT8;
            case NUMBER:
                return PgType.NUMERIC;
            case TIMESTAMP:
                return PgType.TIMESTAMPTZ;
            default:
                return PgType.TEXT;
        }
    }

    private void execute(final PgReader in) {
        final String name = in.cstring();
        final int maxRows = in.int32();
        in.end();
        if (!portals.containsKey(name) && cursors.get(name) != null) {
            throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "cursor \"" + name + "\" is read with "
                + "FETCH, not by executing its portal"));
        }
        final Portal portal = portal(name);
        if (portal.statement.empty) {
            out.begin('I').end();
            return;
        }
        if (portal.streamedTag != null) {
            out.commandComplete(portal.streamedTag);
            return;
        }
        final long startNs = System.nanoTime();
        try {
            if (portal.rows == null && portal.columns == null) {
                portal.rows = catalog(portal.statement.sql, portal.parameters, 0);
            }
            if (portal.rows == null && maxRows <= 0) {
                final long[] counts = stream(portal.statement.sql, portal.parameters, 0, portal.resultFormats, false);
                portal.streamedTag = "SELECT " + counts[0];
                out.commandComplete(portal.streamedTag);
                services.workers().statementDone(200, System.nanoTime() - startNs, counts[1], counts[2]);
                return;
            }
            if (portal.rows == null) {
                portal.rows = held(portal.statement.sql, portal.parameters, 0);
            }
        } catch (final PgFailure e) {
            services.workers().statementDone(e.error().httpStatus(), System.nanoTime() - startNs, 0, 0);
            throw e;
        }
        final PgRows rows = portal.rows;
        if (rows.empty()) {
            out.begin('I').end();
            return;
        }
        if (portal.done) {
            out.commandComplete(rows.tag());
            return;
        }
        final boolean more = rows.hasRows() && rows.write(out, formats(portal.resultFormats, rows.columns()),
            Math.max(0, maxRows));
        if (more) {
            out.begin('s').end(); // PortalSuspended
        } else {
            portal.done = true;
            out.commandComplete(rows.tag());
            services.workers().statementDone(200, System.nanoTime() - startNs, rows.scanned(), rows.matched());
        }
    }

    private void close(final PgReader in) {
        final int kind = in.int8();
        final String name = in.cstring();
        in.end();
        if (kind == 'S') {
            statements.remove(name);
        } else if (kind == 'P') {
            portals.remove(name);
        } else {
            throw protocol("Close takes 'S' or 'P', not " + kind);
        }
        out.begin('3').end(); // CloseComplete
    }

    private Prepared statement(final String name) {
        final Prepared p = statements.get(name);
        if (p == null) {
            throw new PgFailure(PgError.of(PgError.INVALID_SQL_STATEMENT_NAME, name.isEmpty()
                ? "unnamed prepared statement does not exist" : "prepared statement \"" + name + "\" does not exist"));
        }
        return p;
    }

    private Portal portal(final String name) {
        Portal p = portals.get(name);
        final PgCursors.Cursor cursor = p == null ? cursors.get(name) : null;
        if (cursor != null) {
            // a cursor is a portal of its name, which a client may describe (psycopg does); it is read with FETCH
            p = new Portal(new Prepared(cursor.query, new int[0]), PgParameters.NONE, new short[0]);
            p.rows = cursor.rows;
            p.done = true;
        }
        if (p == null) {
            throw new PgFailure(PgError.of(PgError.INVALID_CURSOR_NAME, name.isEmpty()
                ? "unnamed portal does not exist" : "portal \"" + name + "\" does not exist"));
        }
        return p;
    }

    /** @return each column's format from a Bind's result formats: none (all text), one for all, or one each. */
    private static short[] formats(final short[] asked, final List<PgColumn> columns) {
        final short[] f = new short[columns.size()];
        if (asked.length == 1) {
            java.util.Arrays.fill(f, asked[0]);
        } else if (asked.length == columns.size()) {
            System.arraycopy(asked, 0, f, 0, f.length);
        } else if (asked.length != 0) {
            throw protocol("bind message has " + asked.length + " result formats but the query has "
                + columns.size() + " columns");
        }
        return f;
    }

    static PgFailure protocol(final String message) {
        return new PgFailure(PgError.of(PgError.PROTOCOL_VIOLATION, message));
    }
}
