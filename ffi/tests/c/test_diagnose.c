/*
 * rmq_diagnose: a saved inspect snapshot judged from C. The snapshot is hand-built: AVG over the
 * sorted members a@1, b@1 and 4 queues gives a@1 queues 0-1 and b@1 queues 2-3; a@1 holds 0-2 and
 * b@1 only 2, so queue 2 is held twice (and a@1's own strategy does not give it 2) and queue 3 by
 * nobody.
 */
#include "check.h"

static const char SNAPSHOT[] =
    "{\"group\":\"G\",\"taken_at_ms\":0,"
    "\"topics\":{\"T\":[[\"T\",\"b\",0],[\"T\",\"b\",1],[\"T\",\"b\",2],[\"T\",\"b\",3]]},"
    "\"brokers\":[{\"broker\":\"b\",\"addr\":\"127.0.0.1:10911\",\"consumer_ids\":[\"b@1\",\"a@1\"]}],"
    "\"connections\":[{\"client_id\":\"a@1\",\"client_addr\":\"10.0.0.1:1\",\"language\":\"CPP\",\"version\":1},"
    "{\"client_id\":\"b@1\",\"client_addr\":\"10.0.0.2:1\",\"language\":\"CPP\",\"version\":1}],"
    "\"clients\":[{\"client_id\":\"a@1\",\"running\":{\"properties\":{},\"held\":["
    "{\"queue\":[\"T\",\"b\",0],\"dropped\":false,\"locked\":false,\"last_lock_ms\":0,\"last_pull_ms\":0},"
    "{\"queue\":[\"T\",\"b\",1],\"dropped\":false,\"locked\":false,\"last_lock_ms\":0,\"last_pull_ms\":0},"
    "{\"queue\":[\"T\",\"b\",2],\"dropped\":false,\"locked\":false,\"last_lock_ms\":0,\"last_pull_ms\":0}]}},"
    "{\"client_id\":\"b@1\",\"running\":{\"properties\":{},\"held\":["
    "{\"queue\":[\"T\",\"b\",2],\"dropped\":false,\"locked\":false,\"last_lock_ms\":0,\"last_pull_ms\":0}]}}]}";

static void test_findings_as_json(void) {
    char small[8];
    size_t n = 0;
    /* Too small a buffer says how much is needed; then the whole diagnosis fits. */
    CHECK_RC(rmq_diagnose(SNAPSHOT, "{\"CPP\":{\"strategy\":\"averagely\"}}", small, sizeof small, &n), RMQ_RESULT_BUFFER_TOO_SMALL);
    CHECK(n > sizeof small);
    char *buf = malloc(n);
    size_t m = 0;
    CHECK_OK(rmq_diagnose(SNAPSHOT, "{\"CPP\":{\"strategy\":\"averagely\"}}", buf, n, &m));
    CHECK(m + 1 == n);
    CHECK(strstr(buf, "\"kind\":\"orphaned\"") != NULL);
    CHECK(strstr(buf, "\"kind\":\"double_held\"") != NULL);
    CHECK(strstr(buf, "\"kind\":\"unexpected_holder\"") != NULL);
    /* The one schema (docs/inspect.md): versioned, queues written as allocate writes them. */
    CHECK(strstr(buf, "\"schema_version\":1") != NULL);
    CHECK(strstr(buf, "\"group\":\"G\"") != NULL && strstr(buf, "\"healthy\":false") != NULL);
    CHECK(strstr(buf, "\"queues\":[\"T@b:3\"]") != NULL);
    free(buf);
    /* Without a strategy nobody is expected anything: no unexpected holder. */
    char out[4096];
    CHECK_OK(rmq_diagnose(SNAPSHOT, NULL, out, sizeof out, &m));
    CHECK(strstr(out, "unexpected_holder") == NULL && strstr(out, "double_held") != NULL);
}

static void test_bad_input(void) {
    char out[256];
    size_t n = 0;
    CHECK_RC(rmq_diagnose(NULL, NULL, out, sizeof out, &n), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_diagnose("{\"group\":3}", NULL, out, sizeof out, &n), RMQ_RESULT_INVALID_PARAMETERS);
    char msg[512];
    CHECK_OK(rmq_last_error_message(msg, sizeof msg, &n));
    CHECK(strstr(msg, "not an inspect snapshot") != NULL);
    CHECK_RC(rmq_diagnose(SNAPSHOT, "[1]", out, sizeof out, &n), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_diagnose(SNAPSHOT, "{\"GO\":{\"strategy\":\"no_such\"}}", out, sizeof out, &n), RMQ_RESULT_UNKNOWN_STRATEGY);
    /* A misspelt key of a strategy spec is refused, not ignored. */
    CHECK_RC(rmq_diagnose(SNAPSHOT, "{\"GO\":{\"strategy\":\"averagely\",\"param\":{}}}", out, sizeof out, &n), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_OK(rmq_last_error_message(msg, sizeof msg, &n));
    CHECK(strstr(msg, "param") != NULL);
    const char bad_utf8[] = {'{', '"', (char)0xFF, '"', '}', 0};
    CHECK_RC(rmq_diagnose(bad_utf8, NULL, out, sizeof out, &n), RMQ_RESULT_INVALID_UTF8);
}

int main(void) {
    test_findings_as_json();
    test_bad_input();
    return check_report("test_diagnose");
}
