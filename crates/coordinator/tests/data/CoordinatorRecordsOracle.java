// Kafka as the oracle for Strand's __consumer_offsets records (run by tests/kafka_records.rs with
// Kafka 4.4.0's jars on the classpath, as a single-file source program).
//
//   helpers    prints, one per line, "name key-hex value-hex" (value "-" for a tombstone) for records
//              built by Kafka's own GroupCoordinatorRecordHelpers from the inputs the Rust test
//              gives Strand's shard, so the versions and bytes Kafka writes can be compared.
//   roundtrip  reads such lines on stdin, has GroupCoordinatorRecordSerde read each record and
//              write it again, and prints the result in the same form.

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.io.BufferedReader;
import java.io.InputStreamReader;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.OffsetAndMetadata;
import org.apache.kafka.coordinator.group.classic.ClassicGroup;
import org.apache.kafka.coordinator.group.classic.ClassicGroupMember;
import org.apache.kafka.coordinator.group.classic.ClassicGroupState;

public class CoordinatorRecordsOracle {
    static final HexFormat HEX = HexFormat.of();
    static final GroupCoordinatorRecordSerde SERDE = new GroupCoordinatorRecordSerde();
    static final long T0 = 1_700_000_000_000L;

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("helpers")) {
            helpers(args);
        } else if (args.length == 1 && args[0].equals("roundtrip")) {
            roundtrip();
        } else {
            throw new IllegalArgumentException("usage: helpers SUBSCRIPTION-HEX | roundtrip");
        }
    }

    static void print(String name, CoordinatorRecord record) {
        byte[] value = SERDE.serializeValue(record);
        System.out.println(name + " " + HEX.formatHex(SERDE.serializeKey(record)) + " "
            + (value == null ? "-" : HEX.formatHex(value)));
    }

    static void helpers(String[] args) {
        // The consumer protocol subscription to "orders" (version 1), as the Rust test embeds it.
        byte[] subscription = HEX.parseHex(System.getenv("SUBSCRIPTION_HEX"));

        print("offset-commit", GroupCoordinatorRecordHelpers.newOffsetCommitRecord("g", "orders", 0,
            new OffsetAndMetadata(42L, OptionalInt.of(3), "meta-42", T0, OptionalLong.empty(), Uuid.ZERO_UUID)));
        print("offset-commit-expiry", GroupCoordinatorRecordHelpers.newOffsetCommitRecord("g", "orders", 0,
            new OffsetAndMetadata(42L, OptionalInt.of(3), "meta-42", T0, OptionalLong.of(T0 + 60_000), Uuid.ZERO_UUID)));
        Uuid topicId = new Uuid(0x0707070707070707L, 0x0707070707070707L);
        print("offset-commit-topic-id", GroupCoordinatorRecordHelpers.newOffsetCommitRecord("g", "orders", 0,
            new OffsetAndMetadata(42L, OptionalInt.of(3), "meta-42", T0, OptionalLong.empty(), topicId)));
        print("offset-tombstone", GroupCoordinatorRecordHelpers.newOffsetCommitTombstoneRecord("g", "orders", 0));

        // A group just created by a JoinGroup at T0.
        ClassicGroup fresh = new ClassicGroup(new LogContext(), "g", ClassicGroupState.EMPTY, Time.SYSTEM, 0,
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(T0));
        print("group-created", GroupCoordinatorRecordHelpers.newEmptyGroupMetadataRecord(fresh));

        // Generation 1 of one member, assignment stored by the leader's SyncGroup at T0 + 100.
        print("group-dynamic", oneMemberGroup("a-uuid1", Optional.empty(), "a", subscription));
        print("group-static", oneMemberGroup("inst-uuid1", Optional.of("inst"), "s", subscription));

        // The same group after its member left at T0 + 5000: generation 2, empty.
        ClassicGroup emptied = new ClassicGroup(new LogContext(), "g", ClassicGroupState.EMPTY, Time.SYSTEM, 2,
            Optional.of("consumer"), Optional.empty(), Optional.empty(), Optional.of(T0 + 5_000));
        print("group-emptied", GroupCoordinatorRecordHelpers.newGroupMetadataRecord(emptied, Map.of()));
        print("group-tombstone", GroupCoordinatorRecordHelpers.newGroupMetadataTombstoneRecord("g"));
    }

    static CoordinatorRecord oneMemberGroup(String memberId, Optional<String> instance, String clientId, byte[] subscription) {
        ClassicGroup group = new ClassicGroup(new LogContext(), "g", ClassicGroupState.COMPLETING_REBALANCE,
            Time.SYSTEM, 1, Optional.of("consumer"), Optional.of("range"), Optional.of(memberId), Optional.of(T0 + 100));
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(subscription));
        byte[] assignment = "x".getBytes(StandardCharsets.UTF_8);
        group.add(new ClassicGroupMember(memberId, instance, clientId, "/127.0.0.1", 30_000, 10_000, "consumer",
            protocols, assignment));
        return GroupCoordinatorRecordHelpers.newGroupMetadataRecord(group, Map.of(memberId, assignment));
    }

    static void roundtrip() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            String[] parts = line.split(" ");
            ByteBuffer key = ByteBuffer.wrap(HEX.parseHex(parts[1]));
            ByteBuffer value = parts[2].equals("-") ? null : ByteBuffer.wrap(HEX.parseHex(parts[2]));
            print(parts[0], SERDE.deserialize(key, value));
        }
    }
}
