/* Which queues does this consumer own? The README's C example; the test command builds it with
 * `pkg-config --cflags --libs rocketmq_rebalance` and runs it. */
#include <stdio.h>

#include <rocketmq_rebalance.h>

static int fail(rmq_result rc) {
    char msg[256];
    size_t n;
    rmq_result_message(rc, msg, sizeof msg, &n);
    fprintf(stderr, "error %u: %s\n", (unsigned)rc, msg);
    return 1;
}

int main(void) {
    rmq_result rc;
    rmq_strategy *strategy = NULL;
    if ((rc = rmq_strategy_from_config("consistent_hash", "{\"virtual_node_count\": 10}", &strategy))) return fail(rc);

    /* The topic route: 8 queues on two brokers. Sort like every client does. */
    rmq_queue_list *queues = NULL;
    rmq_queue_list_new(&queues);
    for (int i = 0; i < 4; i++) {
        rmq_queue_list_push(queues, "TopicA", "broker-b", i);
        rmq_queue_list_push(queues, "TopicA", "broker-a", i);
    }
    rmq_queue_list_sort(queues);
    const char *ids[] = {"10.0.0.3@7", "10.0.0.1@7", "10.0.0.2@7"};
    rmq_sort_client_ids(ids, 3);

    rmq_queue_list *mine = NULL;
    rc = rmq_strategy_allocate(strategy, "GID_demo", "10.0.0.1@7", queues, ids, 3, &mine);
    if (rc != RMQ_RESULT_OK) return fail(rc);
    printf("%s gives 10.0.0.1@7 %zu queues:\n", rmq_strategy_name(strategy), rmq_queue_list_len(mine));
    for (size_t i = 0; i < rmq_queue_list_len(mine); i++) {
        const char *topic, *broker;
        int32_t id;
        rmq_queue_list_get(mine, i, &topic, &broker, &id);
        printf("  %s@%s:%d\n", topic, broker, id);
    }
    rmq_queue_list_free(mine);
    rmq_queue_list_free(queues);
    rmq_strategy_free(strategy);
    return 0;
}
