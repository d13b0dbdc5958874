/*
 * Every committed conformance vector (answered by the real rocketmq-client jar) through the C API:
 * each strategy built from its name and JSON parameters and again from its typed constructor
 * (MACHINE_ROOM_NEARBY with a resolver written in C), one-member allocation as a list and as
 * positions, and the group view. Input: the file ffi/tests/vectors_to_text.py writes.
 */
#include <stdint.h>

#include "check.h"

#define LINE_MAX_LEN (1 << 20)

static char *line;

static int next_line(FILE *f) {
    if (!fgets(line, LINE_MAX_LEN, f)) return 0;
    line[strcspn(line, "\n")] = '\0';
    return 1;
}

/* "x<hex>" -> a new string; "-" -> NULL. */
static char *decode(const char *token) {
    if (strcmp(token, "-") == 0) return NULL;
    size_t n = strlen(token + 1) / 2;
    char *out = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned byte;
        sscanf(token + 1 + 2 * i, "%2x", &byte);
        out[i] = (char)byte;
    }
    out[n] = '\0';
    return out;
}

static rmq_queue_list *read_queues(FILE *f, size_t n) {
    rmq_queue_list *list = NULL;
    CHECK_OK(rmq_queue_list_new(&list));
    for (size_t i = 0; i < n; i++) {
        char topic[4096], broker[4096];
        int id;
        next_line(f);
        sscanf(line, "%4095s %4095s %d", topic, broker, &id);
        char *t = decode(topic), *b = decode(broker);
        CHECK_OK(rmq_queue_list_push(list, t, b, id));
        free(t);
        free(b);
    }
    return list;
}

static int same_queues(const rmq_queue_list *a, const rmq_queue_list *b) {
    size_t n = rmq_queue_list_len(a);
    if (n != rmq_queue_list_len(b)) return 0;
    for (size_t i = 0; i < n; i++) {
        const char *ta, *ba, *tb, *bb;
        int32_t ia, ib;
        if (rmq_queue_list_get(a, i, &ta, &ba, &ia) != RMQ_RESULT_OK) return 0;
        if (rmq_queue_list_get(b, i, &tb, &bb, &ib) != RMQ_RESULT_OK) return 0;
        if (strcmp(ta, tb) != 0 || strcmp(ba, bb) != 0 || ia != ib) return 0;
    }
    return 1;
}

/* The separator rule of MACHINE_ROOM_NEARBY's default resolver, written in C: the room is the
 * part of the name before the first separator, or the whole name. */
typedef struct {
    char *broker_sep;
    char *consumer_sep;
} separators;

static _Thread_local char room_buf[4096];

static int32_t prefix_room(const char *name, const char *sep, const char **room) {
    const char *at = strstr(name, sep);
    size_t n = at ? (size_t)(at - name) : strlen(name);
    if (n >= sizeof room_buf) return -1;
    memcpy(room_buf, name, n);
    room_buf[n] = '\0';
    *room = room_buf;
    return 0;
}

static int32_t broker_room(void *user_data, const char *topic, const char *broker, int32_t queue_id, const char **room) {
    (void)topic;
    (void)queue_id;
    return prefix_room(broker, ((separators *)user_data)->broker_sep, room);
}

static int32_t consumer_room(void *user_data, const char *client_id, const char **room) {
    return prefix_room(client_id, ((separators *)user_data)->consumer_sep, room);
}

static void free_separators(void *user_data) {
    separators *s = user_data;
    free(s->broker_sep);
    free(s->consumer_sep);
    free(s);
}

/* Builds the strategy of a `typed` line with its typed constructor. */
static rmq_result build_typed(FILE *f, char *spec, rmq_strategy **out) {
    char kind[64];
    int used = 0;
    sscanf(spec, "typed %63s %n", kind, &used);
    const char *rest = spec + used;
    if (strcmp(kind, "averagely") == 0) return rmq_strategy_averagely_new(out);
    if (strcmp(kind, "circle") == 0) return rmq_strategy_circle_new(out);
    if (strcmp(kind, "consistent_hash") == 0) return rmq_strategy_consistent_hash_new(strtoll(rest, NULL, 10), out);
    if (strcmp(kind, "by_machine_room") == 0) {
        if (rest[0] == '-') return rmq_strategy_by_machine_room_new(NULL, 0, out);
        size_t n = strtoul(rest, (char **)&rest, 10);
        char **idcs = calloc(n + 1, sizeof *idcs);
        for (size_t i = 0; i < n; i++) {
            char token[4096];
            int len = 0;
            sscanf(rest, " %4095s%n", token, &len);
            rest += len;
            idcs[i] = decode(token);
        }
        rmq_result rc = rmq_strategy_by_machine_room_new((const char *const *)idcs, n, out);
        for (size_t i = 0; i < n; i++) free(idcs[i]);
        free(idcs);
        return rc;
    }
    if (strcmp(kind, "by_config") == 0) {
        if (rest[0] == '-') return rmq_strategy_by_config_new(NULL, out);
        rmq_queue_list *config = read_queues(f, strtoul(rest, NULL, 10));
        rmq_result rc = rmq_strategy_by_config_new(config, out);
        rmq_queue_list_free(config);
        return rc;
    }
    if (strcmp(kind, "nearby") == 0) {
        char inner_name[4096], inner_params[65536], bsep[256], csep[256];
        sscanf(rest, "%4095s %65535s %255s %255s", inner_name, inner_params, bsep, csep);
        char *name = decode(inner_name), *params = decode(inner_params);
        rmq_strategy *inner = NULL;
        rmq_result rc = rmq_strategy_from_config(name, params, &inner);
        free(name);
        free(params);
        if (rc != RMQ_RESULT_OK) return rc;
        separators *seps = malloc(sizeof *seps);
        seps->broker_sep = decode(bsep);
        seps->consumer_sep = decode(csep);
        rmq_machine_room_resolver resolver = {seps, broker_room, consumer_room, free_separators};
        rc = rmq_strategy_machine_room_nearby_new(inner, &resolver, out);
        rmq_strategy_free(inner); /* shared: the nearby strategy keeps its own reference */
        if (rc != RMQ_RESULT_OK) free_separators(seps);
        return rc;
    }
    if (strcmp(kind, "balanced_sticky") == 0) {
        unsigned key = 0;
        char sep_token[4096];
        int len = 0;
        sscanf(rest, "%u %4095s %n", &key, sep_token, &len);
        rest += len;
        char *sep = sep_token[0] == '-' ? NULL : decode(sep_token);
        size_t n = strtoul(rest, (char **)&rest, 10);
        char **keys = calloc(n + 1, sizeof *keys);
        uint32_t *weights = calloc(n + 1, sizeof *weights);
        for (size_t i = 0; i < n; i++) {
            char token[4096];
            sscanf(rest, " %4095s %u%n", token, &weights[i], &len);
            rest += len;
            keys[i] = decode(token);
        }
        rmq_result rc = rmq_strategy_balanced_sticky_new(key, sep, (const char *const *)keys, weights, n, out);
        for (size_t i = 0; i < n; i++) free(keys[i]);
        free(keys);
        free(weights);
        free(sep);
        return rc;
    }
    if (strcmp(kind, "balanced_sticky_v2") == 0) {
        unsigned key = 0;
        char sep_token[4096];
        long long overload = 0, underload = 0;
        sscanf(rest, "%u %4095s %lld %lld", &key, sep_token, &overload, &underload);
        char *sep = sep_token[0] == '-' ? NULL : decode(sep_token);
        rmq_result rc = rmq_strategy_balanced_sticky_v2_new(key, sep, overload, underload, out);
        free(sep);
        return rc;
    }
    fprintf(stderr, "unknown typed kind %s\n", kind);
    return RMQ_RESULT_UNKNOWN;
}

typedef struct {
    char kind[16]; /* result, null, error */
    char exception[128];
    unsigned code;
    rmq_queue_list *result;
} expectation;

static int matches_error(rmq_result rc, const expectation *e) {
    const char *exception = rmq_result_java_exception(rc);
    return exception && strcmp(exception, e->exception) == 0 && (e->code == 0 || e->code == rc);
}

/* Checks one strategy against the expectation; returns 1 when it agrees. */
static int run_case(const char *id, rmq_strategy *s, rmq_result built, const char *group, const char *current,
                    const rmq_queue_list *queues, char **ids, size_t n_ids, const expectation *e) {
    if (built != RMQ_RESULT_OK) {
        if (strcmp(e->kind, "error") == 0 && matches_error(built, e)) return 1;
        fprintf(stderr, "%s: construction failed with %u\n", id, (unsigned)built);
        return 0;
    }
    const char *const *cids = (const char *const *)ids;
    rmq_queue_list *mine = NULL;
    rmq_result rc = rmq_strategy_allocate(s, group, current, queues, cids, n_ids, &mine);
    int ok;
    if (strcmp(e->kind, "error") == 0) {
        ok = rc != RMQ_RESULT_OK && matches_error(rc, e);
    } else if (strcmp(e->kind, "null") == 0) {
        ok = rc == RMQ_RESULT_OK && mine == NULL;
    } else {
        ok = rc == RMQ_RESULT_OK && mine != NULL && same_queues(mine, e->result);
    }
    if (!ok) fprintf(stderr, "%s: allocate gave %u, expected %s\n", id, (unsigned)rc, e->kind);

    /* Positions must name the same queues (CONFIG answers with its own list instead). */
    size_t cap = rmq_queue_list_len(queues), n = 0;
    size_t *positions = malloc((cap ? cap : 1) * sizeof *positions);
    rmq_result prc = rmq_strategy_allocate_positions(s, group, current, queues, cids, n_ids, positions, cap, &n);
    if (rc == RMQ_RESULT_OK && mine != NULL && prc == RMQ_RESULT_OK) {
        int same = n == rmq_queue_list_len(mine);
        for (size_t i = 0; same && i < n; i++) {
            const char *t1, *b1, *t2, *b2;
            int32_t q1, q2;
            rmq_queue_list_get(queues, positions[i], &t1, &b1, &q1);
            rmq_queue_list_get(mine, i, &t2, &b2, &q2);
            same = strcmp(t1, t2) == 0 && strcmp(b1, b2) == 0 && q1 == q2;
        }
        if (!same) fprintf(stderr, "%s: positions disagree with the list\n", id);
        ok = ok && same;
    } else if (rc != RMQ_RESULT_OK && prc != rc) {
        fprintf(stderr, "%s: positions gave %u, allocate %u\n", id, (unsigned)prc, (unsigned)rc);
        ok = 0;
    } else if (rc == RMQ_RESULT_OK && prc != RMQ_RESULT_OK && prc != RMQ_RESULT_NOT_POSITIONAL && prc != RMQ_RESULT_NO_CONFIGURED_QUEUES) {
        fprintf(stderr, "%s: positions failed with %u\n", id, (unsigned)prc);
        ok = 0;
    }
    /* The same through a checked-once id list (list and positions). */
    rmq_id_list *id_list = NULL;
    CHECK_OK(rmq_id_list_new(cids, n_ids, &id_list));
    rmq_queue_list *mine2 = NULL;
    rmq_result rc2 = rmq_strategy_allocate_ids(s, group, current, queues, id_list, &mine2);
    int same_list = rc2 == rc && (mine == NULL) == (mine2 == NULL) && (mine == NULL || same_queues(mine, mine2));
    size_t n2 = 0;
    size_t *positions2 = malloc((cap ? cap : 1) * sizeof *positions2);
    rmq_result prc2 = rmq_strategy_allocate_positions_ids(s, group, current, queues, id_list, positions2, cap, &n2);
    int same_positions = prc2 == prc && (prc != RMQ_RESULT_OK || (n2 == n && memcmp(positions, positions2, n * sizeof *positions) == 0));
    if (!same_list || !same_positions) {
        fprintf(stderr, "%s: the id-list calls disagree with the array calls\n", id);
        ok = 0;
    }
    free(positions2);
    rmq_queue_list_free(mine2);
    rmq_id_list_free(id_list);
    free(positions);

    /* The group view gives the current id the same share. */
    if (rc == RMQ_RESULT_OK && mine != NULL) {
        rmq_group_allocation *view = NULL;
        if (rmq_strategy_allocate_group(s, group, queues, cids, n_ids, &view) == RMQ_RESULT_OK) {
            for (size_t m = 0; m < rmq_group_allocation_member_count(view); m++) {
                const char *member;
                rmq_queue_list *share = NULL;
                CHECK_OK(rmq_group_allocation_member(view, m, &member, &share));
                if (strcmp(member, current) == 0 && !same_queues(share, mine)) {
                    fprintf(stderr, "%s: group view disagrees for %s\n", id, member);
                    ok = 0;
                }
                rmq_queue_list_free(share);
            }
            rmq_group_allocation_free(view);
        }
    }
    rmq_queue_list_free(mine);
    return ok;
}

int main(int argc, char **argv) {
    /* The fewest cases the file must hold: the whole file has thousands, so that a file that
     * failed to load or convert is never a pass; a sample (valgrind's) states its own. */
    int min_cases = argc == 3 ? atoi(argv[2]) : 2000;
    if (argc != 2 && !(argc == 3 && min_cases > 0)) {
        fprintf(stderr, "usage: %s VECTORS_TXT [MIN_CASES]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    line = malloc(LINE_MAX_LEN);
    int cases = 0, agreed = 0;
    char id[512], config_name[4096], *config_params = malloc(LINE_MAX_LEN), *typed = malloc(LINE_MAX_LEN);
    while (next_line(f)) {
        sscanf(line, "case %511s", id);
        next_line(f);
        sscanf(line, "config %4095s %s", config_name, config_params);
        next_line(f);
        strcpy(typed, line);
        rmq_strategy *by_type = NULL;
        rmq_result typed_rc = build_typed(f, typed, &by_type);
        char token[4096];
        next_line(f);
        sscanf(line, "group %4095s", token);
        char *group = decode(token);
        next_line(f);
        sscanf(line, "current %4095s", token);
        char *current = decode(token);
        size_t n;
        next_line(f);
        sscanf(line, "queues %zu", &n);
        rmq_queue_list *queues = read_queues(f, n);
        next_line(f);
        sscanf(line, "ids %zu", &n);
        char **ids = calloc(n + 1, sizeof *ids);
        for (size_t i = 0; i < n; i++) {
            next_line(f);
            ids[i] = decode(line);
        }
        size_t n_ids = n;
        expectation e = {0};
        next_line(f);
        sscanf(line, "expect %15s", e.kind);
        if (strcmp(e.kind, "error") == 0) sscanf(line, "expect error %127s %u", e.exception, &e.code);
        if (strcmp(e.kind, "result") == 0) {
            sscanf(line, "expect result %zu", &n);
            e.result = read_queues(f, n);
        }
        next_line(f);
        CHECK(strcmp(line, "end") == 0);

        char *name = decode(config_name), *params = decode(config_params);
        rmq_strategy *by_config = NULL;
        rmq_result config_rc = rmq_strategy_from_config(name, params, &by_config);
        int ok = run_case(id, by_config, config_rc, group, current, queues, ids, n_ids, &e);
        ok &= run_case(id, by_type, typed_rc, group, current, queues, ids, n_ids, &e);
        cases++;
        agreed += ok;
        CHECK(ok);

        rmq_strategy_free(by_config);
        rmq_strategy_free(by_type);
        rmq_queue_list_free(queues);
        rmq_queue_list_free(e.result);
        for (size_t i = 0; i < n_ids; i++) free(ids[i]);
        free(ids);
        free(name);
        free(params);
        free(group);
        free(current);
    }
    fclose(f);
    free(line);
    free(config_params);
    free(typed);
    printf("%d vectors, %d agree with their answers (Java's; the core's for BALANCED_STICKY), config-built and typed\n", cases, agreed);
    CHECK(cases >= min_cases);
    return check_report("test_vectors");
}
