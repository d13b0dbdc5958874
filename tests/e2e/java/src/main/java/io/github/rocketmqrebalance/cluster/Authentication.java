package io.github.rocketmqrebalance.cluster;

import java.io.File;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider;
import org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider;
import org.apache.rocketmq.auth.config.AuthConfig;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.remoting.RPCHook;

/**
 * A 5.x broker that authenticates every request (ACL 2.0, as a production cluster turns it on in
 * broker.conf: {@code authenticationEnabled=true} with the default provider and the local user
 * store), knowing one user; and the client side's signing hook for that user.
 *
 * <p>The broker keeps its users under {@code <rocketmq home>/auth}. RocketMQ's auth factory caches
 * each provider by the configuration's name for the life of the JVM and closes the cached store
 * when a broker shuts down, so every broker built here gets a name of its own.
 */
public final class Authentication {
    private static final AtomicInteger BROKERS = new AtomicInteger();

    private Authentication() {
    }

    /** Builds brokers that accept requests signed with {@code accessKey}/{@code secretKey} and refuse every other. */
    public static LocalCluster.BrokerMaker broker(String accessKey, String secretKey) {
        return (broker, server, client, store) -> {
            AuthConfig auth = new AuthConfig();
            auth.setConfigName("rebalance-e2e-" + BROKERS.incrementAndGet());
            auth.setClusterName(broker.getBrokerClusterName());
            auth.setAuthConfigPath(new File(broker.getRocketmqHome(), "auth").getPath());
            auth.setAuthenticationEnabled(true);
            auth.setAuthenticationProvider(DefaultAuthenticationProvider.class.getName());
            auth.setAuthenticationMetadataProvider(LocalAuthenticationMetadataProvider.class.getName());
            // The first user, created at start; the broker signs its own requests (to the
            // NameServer, to other brokers) with the same credentials.
            auth.setInitAuthenticationUser("{\"username\":\"" + accessKey + "\",\"password\":\"" + secretKey + "\"}");
            auth.setInnerClientAuthenticationCredentials("{\"accessKey\":\"" + accessKey + "\",\"secretKey\":\"" + secretKey + "\"}");
            return new BrokerController(broker, server, client, store, auth);
        };
    }

    /** The client's hook signing every request as {@code accessKey} (what an application passes to its consumer). */
    public static RPCHook signing(String accessKey, String secretKey) {
        return new AclClientRPCHook(new SessionCredentials(accessKey, secretKey));
    }
}
