package dev.strand.compat;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives test classes annotated {@code @ExtendWith(BrokerExtension.class)} a {@link Broker} parameter.
 * One broker serves the whole run: it is started by the first class that needs it, kept in the root
 * context's store, and closed (stopped, its run directory deleted) when the run ends, whatever the
 * tests did. A broker that failed to start fails every class with the same message, without
 * trying again.
 */
public final class BrokerExtension implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BrokerExtension.class);

    /** The started broker, or why it could not be started. Closing it stops the broker. */
    private record Startup(Broker broker, Exception failure) implements AutoCloseable {
        static Startup attempt() {
            try {
                return new Startup(Broker.start(), null);
            } catch (Exception e) {
                return new Startup(null, e);
            }
        }

        Broker get() {
            if (failure != null) {
                throw new IllegalStateException(failure.getMessage(), failure);
            }
            return broker;
        }

        @Override
        public void close() {
            if (broker != null) {
                broker.close();
            }
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        broker(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Broker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return broker(context);
    }

    private static Broker broker(ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        return store.computeIfAbsent(Startup.class, key -> Startup.attempt(), Startup.class).get();
    }
}
