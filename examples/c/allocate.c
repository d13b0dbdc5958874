/* Which queues does this consumer own? (The README's C quick start, built and run by the tests.) */
#include <stdio.h>
#include <rocketmq_rebalance.h>

int main(void) {
    rmq_strategy *strategy = NULL;
    rmq_queue_list *queues = NULL, *mine = NULL;
    const char *ids[] = {"10.0.0.3@7", "10.0.0.1@7", "10.0.0.2@7"};
    rmq_strategy_from_config("consistent_hash", "{\"virtual_node_count\": 10}", &strategy);
    rmq_queue_list_new(&queues);
    for (int i = 0; i < 4; i++) { /* the route: 8 queues on two brokers */
        rmq_queue_list_push(queues, "TopicA", "broker-a", i);
        rmq_queue_list_push(queues, "TopicA", "broker-b", i);
    }
    rmq_queue_list_sort(queues); /* every client sorts both lists the same way */
    rmq_sort_client_ids(ids, 3);
    if (rmq_strategy_allocate(strategy, "GID_demo", "10.0.0.1@7", queues, ids, 3, &mine) != RMQ_RESULT_OK) {
        char why[256];
        size_t n;
        rmq_last_error_message(why, sizeof why, &n); /* the full reason, e.g. which argument */
        fprintf(stderr, "allocate failed: %s\n", why);
        return 1;
    }
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
