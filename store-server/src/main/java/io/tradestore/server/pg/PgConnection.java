package io.tradestore.server.pg;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import io.tradestore.query.ErrorCode;
import io.tradestore.server.admission.AdmittedQuery;

/**
 * One client connection: its startup and login on the event loop, then its messages handed to the shared workers in
 * batches (one batch runs at a time, in order; messages that arrive meanwhile join the next). Holds no worker while
 * the client is idle or sends a message slowly.
 *
 * <pre>
 *  STARTUP ──SSLRequest/GSSENCRequest──> 'N', STARTUP
 *     │──CancelRequest──> cancel that session's statement, close
 *     └──StartupMessage──> (past the bound: FATAL 53300, close)
 *           token? ──yes──> AuthenticationSASL ──> PASSWORD (SCRAM-SHA-256) ──wrong──> FATAL 28P01, close
 *             │                                                        └──right──┐
 *             └─no──> AuthenticationOk, ParameterStatus, BackendKeyData, ReadyForQuery ──> READY
 * </pre>
 */
final class PgConnection extends ChannelInboundHandlerAdapter {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PgServer.class);
    /** Messages queued while a batch runs before the connection stops reading (the client is far ahead). */
    private static final int MAX_QUEUED = 1_024;

    private static final PgFrame SYNC = new PgFrame('S', 0, new byte[0]);

    private enum State { STARTUP, PASSWORD, READY, CLOSED }

    private final PgServer server;
    private final PgServer.Services services;
    private final boolean refused;
    private State state = State.STARTUP;
    private Channel channel;
    private PgOutput out;
    private PgSession session;
    private String user = "";
    private Map<String, String> startupParameters = Map.of();
    private int pid;
    private volatile int secret;
    private ScheduledFuture<?> loginTimer;
    private PgScram scram;
    private boolean scramStarted;
    /** Messages waiting for the next batch; guarded by this. */
    private final ArrayDeque<PgFrame> queued = new ArrayDeque<>();
    /** Whether a batch is queued for or running on a worker; guarded by this. */
    private boolean busy;
    private volatile boolean closed;

    PgConnection(final PgServer server, final PgServer.Services services, final boolean refused) {
        this.server = server;
        this.services = services;
        this.refused = refused;
    }

    int secret() {
        return secret;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        out = new PgOutput(channel);
        final long ms = services.config().messageTimeoutMs();
        loginTimer = ctx.executor().schedule(() -> {
            if (state != State.READY && channel.isActive()) {
                fatal(PgError.PROTOCOL_VIOLATION, "the session did not start within " + ms + " ms");
            }
        }, ms, TimeUnit.MILLISECONDS);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final PgFrame f = (PgFrame) msg;
        try {
            switch (state) {
                case STARTUP:
                    startup(f);
                    break;
                case PASSWORD:
                    password(f);
                    break;
                case READY:
                    enqueue(f);
                    break;
                default:
                    break; // closing: later messages are dropped
            }
        } catch (final PgFailure e) {
            out.discard();
            out.error(PgError.fatal(e.error().sqlState(), e.error().message()));
            closeAfterWrite();
        }
    }

    // ------------------------------------------------------------------------------------------------ startup

    private void startup(final PgFrame f) {
        if (!f.untyped()) {
            throw new PgFailure(PgError.of(PgError.PROTOCOL_VIOLATION, "expected a startup message"));
        }
        if (f.code() == PgFrame.SSL_REQUEST || f.code() == PgFrame.GSSENC_REQUEST) {
            // no TLS here: the client goes on in plain text, or gives up if it requires encryption
            channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'N'}), channel.voidPromise());
            return;
        }
        if (f.code() == PgFrame.CANCEL_REQUEST) {
            final PgReader in = new PgReader(f.body());
            final int cancelPid = in.int32();
            final int cancelSecret = in.int32();
            in.end();
            server.cancel(cancelPid, cancelSecret);
            state = State.CLOSED;
            channel.close();
            return;
        }
        if (f.code() >> 16 != 3) {
            throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "unsupported frontend protocol "
                + (f.code() >> 16) + "." + (f.code() & 0xFFFF) + ": the server supports 3.0"));
        }
        final List<String> unknownOptions = readStartupParameters(f.body());
        if (refused) {
            throw new PgFailure(PgError.of(PgError.TOO_MANY_CONNECTIONS, "sorry, too many clients already ("
                + services.config().maxConnections() + " connections are open; the bound is --pg-max-connections)"));
        }
        if ((f.code() & 0xFFFF) != 0 || !unknownOptions.isEmpty()) {
            // NegotiateProtocolVersion: 3.0, and the protocol options it does not know
            out.begin('v').int32(0).int32(unknownOptions.size());
            for (final String o : unknownOptions) {
                out.cstring(o);
            }
            out.end();
        }
        if (services.config().token() != null) {
            // AuthenticationSASL: the client proves it knows the token without sending it
            out.begin('R').int32(10).cstring(PgScram.MECHANISM).int8(0).end();
            out.flush();
            scram = new PgScram(server.scramKeys());
            state = State.PASSWORD;
        } else {
            ready();
        }
    }

    private List<String> readStartupParameters(final byte[] body) {
        final PgReader in = new PgReader(body);
        final Map<String, String> params = new HashMap<>();
        final List<String> unknown = new ArrayList<>();
        while (true) {
            final String name = in.cstring();
            if (name.isEmpty()) {
                break;
            }
            final String value = in.cstring();
            if (name.startsWith("_pq_.")) {
                unknown.add(name);
            } else {
                params.put(name, value);
            }
        }
        in.end();
        user = params.getOrDefault("user", "");
        if (user.isEmpty()) {
            throw new PgFailure(PgError.of("28000", "no PostgreSQL user name specified in startup packet"));
        }
        startupParameters = params;
        return unknown;
    }

    /** SASLInitialResponse, then SASLResponse: the two client messages of SCRAM-SHA-256. */
    private void password(final PgFrame f) {
        if (f.type() != 'p') {
            throw new PgFailure(PgError.of(PgError.PROTOCOL_VIOLATION, "expected a password message, not '"
                + f.type() + "'"));
        }
        final PgReader in = new PgReader(f.body());
        if (!scramStarted) {
            final String mechanism = in.cstring();
            final byte[] data = in.bytes();
            in.end();
            if (!PgScram.MECHANISM.equals(mechanism) || data == null) {
                throw new PgFailure(PgError.of("28000", "the server authenticates with " + PgScram.MECHANISM
                    + " only; the password is the server's token"));
            }
            scramStarted = true;
            final String serverFirst = scram.first(new String(data, StandardCharsets.UTF_8));
            out.begin('R').int32(11).bytes(serverFirst.getBytes(StandardCharsets.UTF_8)).end(); // SASLContinue
            out.flush();
            return;
        }
        final String serverFinal = scram.last(new String(f.body(), StandardCharsets.UTF_8));
        out.begin('R').int32(12).bytes(serverFinal.getBytes(StandardCharsets.UTF_8)).end(); // SASLFinal
        ready();
    }

    private void ready() {
        out.begin('R').int32(0).end(); // AuthenticationOk
        final SessionSettings settings = startupSettings();
        // server_version among them: the version the catalog answers to, by which clients pick their catalog queries
        for (final Map.Entry<String, String> e : settings.changedReported().entrySet()) {
            out.parameterStatus(e.getKey(), e.getValue());
        }
        final int[] key = server.register(this);
        pid = key[0];
        secret = key[1];
        out.begin('K').int32(pid).int32(secret).end(); // BackendKeyData
        out.readyForQuery('I');
        out.flush();
        session = new PgSession(services, out, settings);
        state = State.READY;
        if (loginTimer != null) {
            loginTimer.cancel(false);
        }
    }

    /**
     * The session's parameters from its startup message, as PostgreSQL sets them. A value tradestore does not take
     * is left at the default, which the ParameterStatus that follows tells the client: pgjdbc sends the JVM's
     * TimeZone, and a connection must not fail for a zone the server does not write timestamps in.
     */
    private SessionSettings startupSettings() {
        final SessionSettings settings = new SessionSettings();
        settings.startup("session_authorization", user);
        for (final Map.Entry<String, String> e : startupParameters.entrySet()) {
            if (SessionSettings.name(e.getKey()) != null) {
                try {
                    settings.startup(e.getKey(), e.getValue());
                } catch (final PgFailure ignored) {
                    // the default stays, and the client hears it
                }
            }
        }
        return settings;
    }

    // ------------------------------------------------------------------------------------------------ batches

    private void enqueue(final PgFrame f) {
        synchronized (this) {
            queued.add(f);
            if (queued.size() >= MAX_QUEUED) {
                channel.config().setAutoRead(false); // the client is far ahead of its answers: wait for it
            }
            if (busy) {
                return;
            }
            busy = true;
        }
        final Batch batch = new Batch(System.nanoTime());
        if (!services.workers().submit(batch)) {
            refuseQueued();
        }
    }

    /** All workers busy and the queue full: every statement queued is answered 53000 here, on the event loop. */
    private void refuseQueued() {
        final List<PgFrame> frames = take();
        final String message = services.workers().overloadedMessage();
        boolean skipping = false;
        for (final PgFrame f : frames) {
            switch (f.type()) {
                case 'X':
                    close();
                    return;
                case 'Q':
                    out.error(PgError.of(PgError.INSUFFICIENT_RESOURCES, message));
                    services.workers().statementDone(503, 0, 0, 0);
                    skipping = false;
                    session.handle(SYNC); // ReadyForQuery, in the session's transaction state
                    break;
                case 'S':
                    skipping = false;
                    session.handle(SYNC);
                    break;
                case 'H':
                    break;
                default:
                    if (!skipping) {
                        out.error(PgError.of(PgError.INSUFFICIENT_RESOURCES, message));
                        services.workers().statementDone(503, 0, 0, 0);
                        skipping = true;
                    }
            }
        }
        out.flush();
        synchronized (this) {
            busy = false;
        }
        resumeReading();
    }

    private List<PgFrame> take() {
        synchronized (this) {
            final List<PgFrame> frames = new ArrayList<>(queued);
            queued.clear();
            return frames;
        }
    }

    private void resumeReading() {
        if (!channel.config().isAutoRead() && !closed) {
            channel.eventLoop().execute(() -> channel.config().setAutoRead(true));
        }
    }

    /** A connection's messages on a worker: run until none are queued. */
    private final class Batch implements AdmittedQuery {
        private final long queuedNs;
        private final AtomicBoolean started = new AtomicBoolean();

        Batch(final long queuedNs) {
            this.queuedNs = queuedNs;
        }

        @Override
        public void run() {
            if (!started.compareAndSet(false, true)) {
                return; // the stop answered it first
            }
            session.batchStarts(queuedNs);
            try {
                while (true) {
                    final List<PgFrame> frames;
                    synchronized (PgConnection.this) {
                        if (queued.isEmpty() || closed) {
                            end();
                            return;
                        }
                        frames = new ArrayList<>(queued);
                        queued.clear();
                    }
                    resumeReading();
                    for (final PgFrame f : frames) {
                        if (closed) {
                            break;
                        }
                        if (!session.handle(f)) {
                            out.flushAndClose();
                            close();
                            break;
                        }
                    }
                    out.flush();
                }
            } catch (final RuntimeException | Error e) {
                // a bug: the session's state is not to be trusted; the client is told and the connection closes
                out.discard();
                out.error(PgError.internal(e));
                out.flushAndClose();
                close();
                synchronized (PgConnection.this) {
                    end();
                }
            }
        }

        /** Under the connection's lock: the batch is over, and the next message starts another. */
        private void end() {
            if (closed) {
                out.discard();
            }
            session.batchEnds();
            busy = false;
        }

        @Override
        public void stopNow() {
            if (started.compareAndSet(false, true)) {
                // never started: the client is told, on its loop, while no worker writes
                channel.eventLoop().execute(() -> {
                    out.error(PgError.fatal(PgError.ADMIN_SHUTDOWN, "terminating connection: the server is "
                        + "stopping"));
                    out.flushAndClose();
                    close();
                });
            } else {
                cancel(ErrorCode.OVERLOADED, "terminating connection: the server is stopping");
            }
        }
    }

    /**
     * Stops the session's running statement (CancelRequest, the server's stop).
     *
     * @param code    the code it fails with.
     * @param message what its client is told.
     */
    void cancel(final ErrorCode code, final String message) {
        final PgSession s = session;
        if (s != null) {
            final boolean pending;
            synchronized (this) {
                pending = busy;
            }
            s.cancel(code, message, pending);
        }
    }

    // ------------------------------------------------------------------------------------------------ closing

    private void fatal(final String sqlState, final String message) {
        out.discard();
        out.error(PgError.fatal(sqlState, message));
        closeAfterWrite();
    }

    private void closeAfterWrite() {
        state = State.CLOSED;
        out.flushAndClose();
    }

    private void close() {
        closed = true;
        channel.close();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
        closed = true;
        state = State.CLOSED;
        if (loginTimer != null) {
            loginTimer.cancel(false);
        }
        if (pid != 0) {
            server.unregister(pid, this);
        }
        // a client gone mid-query frees its worker: the statement stops at its next batch of rows
        cancel(ErrorCode.TIMEOUT, "the client closed the connection");
        synchronized (this) {
            queued.clear();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        // a reset by the client or a write timeout: nothing to answer
        LOG.debug("PostgreSQL connection closed: {}", String.valueOf(cause));
        closed = true;
        ctx.close();
    }
}
