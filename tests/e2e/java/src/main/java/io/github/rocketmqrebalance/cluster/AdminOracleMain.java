package io.github.rocketmqrebalance.cluster;

import com.google.gson.GsonBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.remoting.protocol.body.Connection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.body.ProcessQueueInfo;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The second decoder `inspect` is checked against: RocketMQ's own admin client
 * ({@code DefaultMQAdminExt} of rocketmq-tools) reads a live group and prints what it decoded as
 * one JSON object in the field names of inspect's snapshot (connections, each client's running
 * info, the offsets), so tests/e2e/drivers/mixed_go.py can compare the two field by field.
 * A client whose running info the admin client cannot read or decode is listed with its error.
 */
public final class AdminOracleMain {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: AdminOracleMain <namesrv> <group>");
            System.exit(2);
        }
        DefaultMQAdminExt admin = new DefaultMQAdminExt(15_000);
        admin.setNamesrvAddr(args[0]);
        admin.setInstanceName("inspect-oracle-" + ProcessHandle.current().pid());
        admin.start();
        try {
            System.out.println(new GsonBuilder().serializeNulls().create().toJson(read(admin, args[1])));
        } finally {
            admin.shutdown();
        }
    }

    private static Map<String, Object> read(DefaultMQAdminExt admin, String group) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        ConsumerConnection cc = admin.examineConsumerConnectionInfo(group);
        List<Map<String, Object>> connections = new ArrayList<>();
        List<Map<String, Object>> clients = new ArrayList<>();
        for (Connection c : cc.getConnectionSet()) {
            Map<String, Object> conn = new LinkedHashMap<>();
            conn.put("client_id", c.getClientId());
            conn.put("client_addr", c.getClientAddr());
            conn.put("language", c.getLanguage().name());
            conn.put("version", c.getVersion());
            connections.add(conn);
            clients.add(client(admin, group, c.getClientId()));
        }
        out.put("message_model", cc.getMessageModel() == null ? null : cc.getMessageModel().name());
        out.put("connections", connections);
        out.put("clients", clients);
        List<Map<String, Object>> offsets = new ArrayList<>();
        // The request inspect sends (GET_CONSUME_STATS, every master of the group's retry topic),
        // decoded by the client's own ConsumeStats. Not examineConsumeStats: 5.x's first asks each
        // broker for topic configs (GET_TOPIC_CONFIG), which a 4.9 broker does not serve.
        Map<MessageQueue, OffsetWrapper> table = new TreeMap<>();
        MQClientAPIImpl api = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl();
        for (BrokerData broker : admin.examineTopicRouteInfo(MixAll.getRetryTopic(group)).getBrokerDatas()) {
            String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (master != null) {
                table.putAll(api.getConsumeStats(master, group, 15_000).getOffsetTable());
            }
        }
        for (Map.Entry<MessageQueue, OffsetWrapper> e : table.entrySet()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("queue", queue(e.getKey()));
            o.put("broker_offset", e.getValue().getBrokerOffset());
            o.put("consumer_offset", e.getValue().getConsumerOffset());
            offsets.add(o);
        }
        out.put("offsets", offsets);
        return out;
    }

    private static Map<String, Object> client(DefaultMQAdminExt admin, String group, String clientId) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("client_id", clientId);
        ConsumerRunningInfo info;
        try {
            info = admin.getConsumerRunningInfo(group, clientId, false);
        } catch (Exception e) {
            out.put("error", e.toString());
            return out;
        }
        if (info == null) {
            out.put("error", "no running info");
            return out;
        }
        Map<String, String> props = new TreeMap<>();
        info.getProperties().forEach((k, v) -> props.put(String.valueOf(k), String.valueOf(v)));
        List<Map<String, Object>> held = new ArrayList<>();
        for (Map.Entry<MessageQueue, ProcessQueueInfo> e : info.getMqTable().entrySet()) {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("queue", queue(e.getKey()));
            h.put("dropped", e.getValue().isDroped());
            h.put("locked", e.getValue().isLocked());
            h.put("last_lock_ms", e.getValue().getLastLockTimestamp());
            h.put("last_pull_ms", e.getValue().getLastPullTimestamp());
            held.add(h);
        }
        List<Map<String, Object>> subs = new ArrayList<>();
        for (SubscriptionData s : info.getSubscriptionSet()) {
            Map<String, Object> sub = new LinkedHashMap<>();
            sub.put("topic", s.getTopic());
            sub.put("expression", s.getSubString());
            sub.put("expression_type", s.getExpressionType());
            sub.put("sub_version", s.getSubVersion());
            subs.add(sub);
        }
        Map<String, Object> running = new LinkedHashMap<>();
        running.put("properties", props);
        running.put("held", held);
        running.put("subscriptions", subs);
        out.put("running", running);
        return out;
    }

    private static List<Object> queue(MessageQueue q) {
        return Arrays.asList(q.getTopic(), q.getBrokerName(), q.getQueueId());
    }
}
