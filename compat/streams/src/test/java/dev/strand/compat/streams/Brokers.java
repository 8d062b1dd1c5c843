package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The brokers every scenario runs on, shared by the whole run and stopped when it ends: with
 * {@code STRAND_COMPAT_BROKER=strand} (the default) Strand and, as the reference, Apache Kafka 4.4.0
 * ({@code STRAND_COMPAT_STREAMS_REFERENCE=0} leaves Kafka out); with {@code kafka}, Kafka alone.
 * Test classes annotated {@code @ExtendWith(Brokers.Extension.class)} get a {@link Brokers} parameter.
 */
public final class Brokers implements AutoCloseable {
    private final List<Broker> started;

    private Brokers(List<Broker> started) {
        this.started = started;
    }

    /** In run order: Strand first when it runs. */
    public List<Broker> all() {
        return started;
    }

    static Brokers start() throws Exception {
        List<Broker.Kind> kinds = new ArrayList<>();
        String selected = System.getenv().getOrDefault("STRAND_COMPAT_BROKER", "strand");
        if (selected.equals("strand")) {
            kinds.add(Broker.Kind.STRAND);
            if (!"0".equals(System.getenv("STRAND_COMPAT_STREAMS_REFERENCE"))) {
                kinds.add(Broker.Kind.KAFKA);
            }
        } else if (selected.equals("kafka")) {
            kinds.add(Broker.Kind.KAFKA);
        } else {
            throw new IllegalArgumentException("STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not '" + selected + "'");
        }
        List<Broker> brokers = new ArrayList<>();
        try {
            for (Broker.Kind kind : kinds) {
                brokers.add(Broker.start(kind));
            }
        } catch (Exception | Error e) {
            brokers.forEach(Broker::close);
            throw e;
        }
        return new Brokers(brokers);
    }

    @Override
    public void close() {
        started.forEach(Broker::close);
    }

    /** Starts the brokers once per run (the root context's store closes them at its end). */
    public static final class Extension implements BeforeAllCallback, ParameterResolver {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(Brokers.class);

        private record Startup(Brokers brokers, Exception failure) implements AutoCloseable {
            static Startup attempt() {
                try {
                    return new Startup(Brokers.start(), null);
                } catch (Exception e) {
                    return new Startup(null, e);
                }
            }

            Brokers get() {
                if (failure != null) {
                    throw new IllegalStateException(failure.getMessage(), failure);
                }
                return brokers;
            }

            @Override
            public void close() {
                if (brokers != null) {
                    brokers.close();
                }
            }
        }

        @Override
        public void beforeAll(ExtensionContext context) {
            brokers(context);
        }

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == Brokers.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return brokers(context);
        }

        private static Brokers brokers(ExtensionContext context) {
            return context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(Startup.class, key -> Startup.attempt(), Startup.class).get();
        }
    }
}
