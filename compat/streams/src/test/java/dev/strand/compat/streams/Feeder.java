package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces record 0, 1, 2, ... (keys from {@code keyOf}) on a thread of its own, in batches of
 * {@link #BATCH}, each acknowledged (acks=all, idempotent) before the next is sent, as far as the test
 * has allowed ({@link #allow}): records flow while the application changes around them, and how
 * many there are in all is the test's choice.
 */
final class Feeder implements AutoCloseable {
    static final int BATCH = 50;

    private final AtomicInteger acknowledged = new AtomicInteger();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final Object allowance = new Object();
    private int allowed;
    private boolean stopping;
    private final Thread thread;

    Feeder(Broker broker, String topic, IntFunction<String> keyOf) {
        this(broker.bootstrap(), topic, keyOf);
    }

    Feeder(String bootstrap, String topic, IntFunction<String> keyOf) {
        thread = new Thread(() -> {
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 1), new StringSerializer(), new StringSerializer())) {
                int next = 0;
                while (true) {
                    synchronized (allowance) {
                        while (!stopping && next >= allowed) {
                            allowance.wait();
                        }
                        if (stopping) {
                            break;
                        }
                    }
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int i = next; i < next + BATCH; i++) {
                        sent.add(producer.send(new ProducerRecord<>(topic, keyOf.apply(i), "value-" + i)));
                    }
                    for (Future<RecordMetadata> future : sent) {
                        future.get(30, TimeUnit.SECONDS);
                    }
                    next += BATCH;
                    acknowledged.set(next);
                }
            } catch (Exception e) {
                error.compareAndSet(null, e);
            }
        }, "feeder-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    /** Lets {@code records} (a multiple of BATCH) more records be sent; returns how many are allowed in all. */
    int allow(int records) {
        synchronized (allowance) {
            allowed += records;
            allowance.notifyAll();
            return allowed;
        }
    }

    /** Records acknowledged so far (whole batches). */
    int acknowledged() {
        checkHealthy();
        return acknowledged.get();
    }

    void checkHealthy() {
        Throwable failure = error.get();
        if (failure != null) {
            throw new AssertionError("the feeder failed: " + failure, failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        synchronized (allowance) {
            stopping = true;
            allowance.notifyAll();
        }
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }
}
