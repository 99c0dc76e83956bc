package io.tradestore.server.pg;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import io.tradestore.core.StoreException;
import io.tradestore.query.ErrorCode;
import io.tradestore.server.admission.QueryWorkers;
import io.tradestore.server.http.QueryService;

/**
 * The PostgreSQL wire protocol (v3) front of a store, beside the HTTP one and sharing its workers: psql, JDBC,
 * psycopg and Grafana run SQL here (docs/sql.md, "PostgreSQL wire protocol").
 *
 * <pre>
 *  event loops: cut bytes into messages (lengths checked first), startup, SSL/GSSENC refused with 'N', password,
 *     │  CancelRequest (stops the running statement of the session its key names)
 *     └─ a ready session's messages, in batches ──> admitted by the HTTP server's workers? (threads + queue)
 *           no:  the batch's statements answered 53000 at once, on the loop
 *           yes: a worker runs the batch (catalog first, then the engine) and writes the answers
 *  a connection that closes stops its running statement; one past the bound gets 53300 after its startup
 * </pre>
 */
public final class PgServer implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PgServer.class);
    private static final int BACKLOG = 1024;

    /**
     * What a session runs its statements on.
     *
     * @param queries the engine (or a test's service).
     * @param catalog answers session and catalog statements first.
     * @param workers the server's shared query workers.
     * @param config  limits and token.
     */
    record Services(QueryService queries, PgCatalog catalog, QueryWorkers workers, PgConfig config) {
    }

    private final Services services;
    private final EventLoopGroup loops;
    private final Channel listener;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Map<Integer, PgConnection> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger openConnections = new AtomicInteger();
    private final LongAdder refusedConnections = new LongAdder();
    private final SecureRandom random = new SecureRandom();
    private final AtomicBoolean stopped = new AtomicBoolean();
    /** The SCRAM keys of the token, derived once (4,096 rounds of PBKDF2), or null without a token. */
    private final PgScram.Keys scramKeys;

    private PgServer(final Services services) {
        this.services = services;
        this.scramKeys = services.config().token() == null ? null : new PgScram.Keys(services.config().token());
        this.loops = new MultiThreadIoEventLoopGroup(Math.max(1, Runtime.getRuntime().availableProcessors()),
            new DefaultThreadFactory("tradestore-pg", true), NioIoHandler.newFactory());
        final PgConfig config = services.config();
        final ServerBootstrap bootstrap = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, BACKLOG)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    pipeline(ch);
                }
            });
        try {
            this.listener = bootstrap.bind(new InetSocketAddress(config.bind(), config.port())).syncUninterruptibly()
                .channel();
        } catch (final RuntimeException e) {
            loops.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw new StoreException("cannot listen on " + config.bind() + ":" + config.port() + " for PostgreSQL "
                + "clients: " + e.getMessage() + (config.port() != 0 ? "; is another server running there? choose "
                + "another --pg-port, or -1 for none" : ""), e);
        }
    }

    /**
     * Starts serving the PostgreSQL wire protocol.
     *
     * @param config  port, bound, token and time limits.
     * @param queries runs the statements the catalog does not answer.
     * @param catalog answers session and catalog statements.
     * @param workers the HTTP server's workers ({@code QueryServer.workers()}), shared.
     * @return the running server.
     */
    public static PgServer start(final PgConfig config, final QueryService queries, final PgCatalog catalog,
        final QueryWorkers workers) {
        return new PgServer(new Services(queries, catalog, workers, config));
    }

    private void pipeline(final SocketChannel ch) {
        final int open = openConnections.incrementAndGet();
        ch.closeFuture().addListener(f -> openConnections.decrementAndGet());
        final int max = services.config().maxConnections();
        if (open > 2 * max + 16) {
            // far past the bound: not worth a startup exchange (the descriptors are what runs out)
            refusedConnections.increment();
            ch.close();
            return;
        }
        final boolean refused = open > max || stopped.get();
        if (refused) {
            refusedConnections.increment();
        }
        connections.add(ch);
        ch.pipeline().addLast(new WriteTimeoutHandler(services.config().writeTimeoutMs(), TimeUnit.MILLISECONDS),
            new PgFrameDecoder(services.config().maxMessageLength(), services.config().messageTimeoutMs()),
            new PgConnection(this, services, refused));
    }

    /**
     * @param connection a session that has logged in.
     * @return its key: a process id unique among the open sessions and a random secret.
     */
    int[] register(final PgConnection connection) {
        while (true) {
            final int pid = 1 + random.nextInt(Integer.MAX_VALUE - 1);
            if (sessions.putIfAbsent(pid, connection) == null) {
                return new int[] {pid, random.nextInt()};
            }
        }
    }

    PgScram.Keys scramKeys() {
        return scramKeys;
    }

    void unregister(final int pid, final PgConnection connection) {
        sessions.remove(pid, connection);
    }

    /** A CancelRequest: stops the running statement of the session with that key; a wrong key is ignored. */
    void cancel(final int pid, final int secret) {
        final PgConnection c = sessions.get(pid);
        if (c != null && c.secret() == secret) {
            c.cancel(ErrorCode.TIMEOUT, PgError.CANCELED_BY_USER);
        }
    }

    /** @return the address the server listens on (with the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** @return the port the server listens on. */
    public int port() {
        return address().getPort();
    }

    /** @return connections open now. */
    public int openConnections() {
        return openConnections.get();
    }

    /** @return connections refused for being past the bound. */
    public long refusedConnections() {
        return refusedConnections.sum();
    }

    /**
     * Stops: no new connections; every session's running statement is cancelled (its client gets 57P01) and every
     * connection closes. The workers themselves belong to the HTTP server, whose stop drains them. Idempotent.
     */
    @Override
    public void close() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        listener.close().syncUninterruptibly();
        for (final PgConnection c : List.copyOf(sessions.values())) {
            c.cancel(ErrorCode.OVERLOADED, "terminating connection due to administrator command");
        }
        connections.close().awaitUninterruptibly(1_000, TimeUnit.MILLISECONDS);
        loops.shutdownGracefully(0, 1_000, TimeUnit.MILLISECONDS).awaitUninterruptibly(2_000, TimeUnit.MILLISECONDS);
        LOG.debug("PostgreSQL front end stopped");
    }
}
