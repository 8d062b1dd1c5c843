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

import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.Utils;
import org.apache.kafka.coordinator.group.modern.MemberState;
import org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroupMember;
import org.apache.kafka.coordinator.group.modern.consumer.ResolvedRegularExpression;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
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

        consumerGroups();
    }

    /// A topic id as the Rust test makes one: the name's bytes, zero-padded to 16.
    static Uuid topicId(String name) {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        buffer.put(bytes, 0, Math.min(16, bytes.length));
        buffer.rewind();
        return new Uuid(buffer.getLong(), buffer.getLong());
    }

    static KRaftCoordinatorMetadataImage image(Map<String, Integer> topics) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        topics.forEach((name, partitions) -> {
            delta.replay(new TopicRecord().setName(name).setTopicId(topicId(name)));
            for (int p = 0; p < partitions; p++) {
                delta.replay(new PartitionRecord().setPartitionId(p).setTopicId(topicId(name))
                    .setReplicas(List.of(1)).setIsr(List.of(1)).setLeader(1));
            }
        });
        return new KRaftCoordinatorMetadataImage(delta.apply(MetadataProvenance.EMPTY));
    }

    static long groupHash(KRaftCoordinatorMetadataImage image, String... topics) {
        Map<String, Long> hashes = new TreeMap<>();
        for (String topic : topics) hashes.put(topic, Utils.computeTopicHash(topic, image));
        return Utils.computeGroupHash(hashes);
    }

    static Map<Uuid, Map<Integer, Integer>> partitions(String topic, int epoch, int... partitions) {
        Map<Integer, Integer> epochs = new TreeMap<>();
        for (int p : partitions) epochs.put(p, epoch);
        return Map.of(topicId(topic), epochs);
    }

    // The records Strand's shard writes in tests/kafka_records.rs `strand_consumer_records`, as
    // Kafka's helpers write them for the same inputs.
    static void consumerGroups() {
        KRaftCoordinatorMetadataImage image = image(new TreeMap<>(Map.of("orders", 3, "auto-a", 2, "t\u00e9", 5)));
        System.out.println("topic-hash-orders " + Long.toHexString(Utils.computeTopicHash("orders", image)) + " -");
        System.out.println("topic-hash-te " + Long.toHexString(Utils.computeTopicHash("t\u00e9", image)) + " -");
        System.out.println("group-hash " + Long.toHexString(groupHash(image, "orders", "auto-a")) + " -");

        ConsumerGroupMember m1 = new ConsumerGroupMember.Builder("m1").setClientId("consumer").setClientHost("/127.0.0.1")
            .setSubscribedTopicNames(List.of("orders")).setRebalanceTimeoutMs(30_000).build();
        print("cg-member", GroupCoordinatorRecordHelpers.newConsumerGroupMemberSubscriptionRecord("g", m1));
        print("cg-epoch", GroupCoordinatorRecordHelpers.newConsumerGroupEpochRecord("g", 1, groupHash(image, "orders")));
        print("cg-target", GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentRecord("g", "m1",
            Map.of(topicId("orders"), new java.util.TreeSet<>(Set.of(0, 1, 2)))));
        print("cg-target-epoch", GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentMetadataRecord("g", 1, T0));
        ConsumerGroupMember m1Assigned = new ConsumerGroupMember.Builder(m1).setMemberEpoch(1).setPreviousMemberEpoch(0)
            .setState(MemberState.STABLE).setAssignedPartitions(partitions("orders", 1, 0, 1, 2))
            .setPartitionsPendingRevocation(Map.of()).build();
        print("cg-current", GroupCoordinatorRecordHelpers.newConsumerGroupCurrentAssignmentRecord("g", m1Assigned));

        print("cg-current-tombstone", GroupCoordinatorRecordHelpers.newConsumerGroupCurrentAssignmentTombstoneRecord("g", "m1"));
        print("cg-target-tombstone", GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentTombstoneRecord("g", "m1"));
        print("cg-member-tombstone", GroupCoordinatorRecordHelpers.newConsumerGroupMemberSubscriptionTombstoneRecord("g", "m1"));
        print("cg-epoch-left", GroupCoordinatorRecordHelpers.newConsumerGroupEpochRecord("g", 2, 0L));
        print("cg-target-epoch-left", GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentMetadataRecord("g", 2, T0));

        ConsumerGroupMember r1 = new ConsumerGroupMember.Builder("r1").setClientId("consumer").setClientHost("/127.0.0.1")
            .setSubscribedTopicNames(List.of()).setSubscribedTopicRegex("auto-.*").setServerAssignorName("range")
            .setInstanceId("inst").setRebalanceTimeoutMs(30_000).build();
        print("cg-regex-member", GroupCoordinatorRecordHelpers.newConsumerGroupMemberSubscriptionRecord("r", r1));
        print("cg-regex", GroupCoordinatorRecordHelpers.newConsumerGroupRegularExpressionRecord("r", "auto-.*",
            new ResolvedRegularExpression(Set.of("auto-a"), 7, T0)));
        print("cg-regex-epoch", GroupCoordinatorRecordHelpers.newConsumerGroupEpochRecord("r", 1, groupHash(image, "auto-a")));
        ConsumerGroupMember r1Away = new ConsumerGroupMember.Builder(r1).setMemberEpoch(-2).setPreviousMemberEpoch(0)
            .setState(MemberState.STABLE).setAssignedPartitions(partitions("auto-a", 0, 0, 1))
            .setPartitionsPendingRevocation(Map.of()).build();
        print("cg-static-away", GroupCoordinatorRecordHelpers.newConsumerGroupCurrentAssignmentRecord("r", r1Away));

        print("cg-delete-target-epoch", GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentMetadataTombstoneRecord("g"));
        print("cg-delete-partition-metadata", GroupCoordinatorRecordHelpers.newConsumerGroupSubscriptionMetadataTombstoneRecord("g"));
        print("cg-delete-epoch", GroupCoordinatorRecordHelpers.newConsumerGroupEpochTombstoneRecord("g"));
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
