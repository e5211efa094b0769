/* A C node's parameters, registry watch and e-stop.
 *   node         in-process checks of all three;
 *   node serve   a driver: parameter max_speed (1.5, within 0..3) of node c_driver and an
 *                e-stop listener; says "ready", prints "max_speed <v>" whenever another
 *                process changes it, and "estop <reason>" (then exits) on an e-stop. */
#include <stdint.h>
#include <unistd.h>
#include "check.h"
#include "nerve/msgs.h"

static void parameters(void) {
    nerve_params *p = NULL;
    EXPECT(nerve_params_open("c_node", NERVE_DOMAIN_DEFAULT, &p), NERVE_OK);
    EXPECT(nerve_param_declare(p, "gain", "0.5", 0.0, 1.0, "controller gain"), NERVE_OK);
    EXPECT(nerve_param_declare(p, "retries", "3", 1, 0, NULL), NERVE_OK);
    EXPECT(nerve_param_declare(p, "enabled", "true", 1, 0, NULL), NERVE_OK);
    EXPECT(nerve_param_declare(p, "mode", "fast", 1, 0, NULL), NERVE_OK);
    EXPECT(nerve_param_declare(p, "gain", "0.5", 1, 0, NULL), NERVE_E_PARAM_REJECTED);
    SAYS("already declared");
    EXPECT(nerve_param_declare(p, "mode2", "fast", 0, 1, NULL), NERVE_E_INVALID_ARGUMENT);
    SAYS("only ints and floats have a range");

    double gain = 0;
    int64_t retries = 0;
    bool enabled = false;
    EXPECT(nerve_param_get_f64(p, "gain", &gain), NERVE_OK);
    EXPECT(nerve_param_get_i64(p, "retries", &retries), NERVE_OK);
    EXPECT(nerve_param_get_bool(p, "enabled", &enabled), NERVE_OK);
    CHECK(gain == 0.5 && retries == 3 && enabled);
    char text[8];
    size_t len = 0;
    EXPECT(nerve_param_get_text(p, "mode", text, sizeof text, &len), NERVE_OK);
    CHECK(len == 4 && strcmp(text, "fast") == 0);
    EXPECT(nerve_param_get_text(p, "mode", text, 4, &len), NERVE_E_BUFFER_TOO_SMALL);
    CHECK(len == 4);
    EXPECT(nerve_param_get_f64(p, "mode", &gain), NERVE_E_PARAM_REJECTED);
    SAYS("nerve_param_get_text");
    EXPECT(nerve_param_get_f64(p, "nope", &gain), NERVE_E_NOT_FOUND);
    SAYS("declare it first");

    EXPECT(nerve_param_set(p, "gain", "0.25"), NERVE_OK);
    EXPECT(nerve_param_get_f64(p, "gain", &gain), NERVE_OK);
    CHECK(gain == 0.25);
    EXPECT(nerve_param_set(p, "gain", "1.5"), NERVE_E_PARAM_REJECTED);
    SAYS("out of range");
    EXPECT(nerve_param_set(p, "gain", "fast"), NERVE_E_PARAM_REJECTED);
    EXPECT(nerve_param_set(p, "gain", "{a: 1}"), NERVE_E_INVALID_ARGUMENT);

    /* The same parameters through the node's parameter service, as another process sees them. */
    nerve_param_client *c = NULL;
    EXPECT(nerve_param_client_open("c_node", NERVE_DOMAIN_DEFAULT, &c), NERVE_OK);
    EXPECT(nerve_param_client_set(c, "gain", "0.75", 2000000000ll), NERVE_OK);
    EXPECT(nerve_param_get_f64(p, "gain", &gain), NERVE_OK);
    CHECK(gain == 0.75);
    EXPECT(nerve_param_client_get(c, "retries", 2000000000ll, text, sizeof text, &len), NERVE_OK);
    CHECK(strcmp(text, "3") == 0);
    EXPECT(nerve_param_client_set(c, "gain", "7.0", 2000000000ll), NERVE_E_PARAM_REJECTED);
    SAYS("out of range");
    EXPECT(nerve_param_client_close(c), NERVE_OK);
    nerve_param_client *nobody = NULL;
    EXPECT(nerve_param_client_open("no_such_node", NERVE_DOMAIN_DEFAULT, &nobody), NERVE_OK);
    EXPECT(nerve_param_client_get(nobody, "x", 100000000ll, text, sizeof text, &len),
           NERVE_E_NO_SERVER);
    EXPECT(nerve_param_client_close(nobody), NERVE_OK);
    EXPECT(nerve_params_close(p), NERVE_OK);
    EXPECT(nerve_params_close(p), NERVE_E_CLOSED);
    EXPECT(nerve_param_get_f64(p, "gain", &gain), NERVE_E_CLOSED);
}

/* The next event that is not about the parameter services' own topics. */
static nerve_event next_event(nerve_watch *w) {
    nerve_event e;
    for (;;) {
        EXPECT(nerve_watch_next(w, 2000000000ll, &e), NERVE_OK);
        if (strncmp(e.topic, "watched/", 8) == 0 || e.kind == NERVE_PROCESS_DIED) {
            return e;
        }
    }
}

static void watch(void) {
    nerve_watch *w = NULL;
    EXPECT(nerve_watch_open(NERVE_DOMAIN_DEFAULT, &w), NERVE_OK);
    nerve_event e;
    while (nerve_watch_next(w, 0, &e) == NERVE_OK) {
        /* what was there before */
    }
    nerve_type t;
    EXPECT(nerve_msgs_CmdVel_type(&t), NERVE_OK);
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open("watched/cmd_vel", &t, NULL, &topic), NERVE_OK);
    e = next_event(w);
    CHECK(e.kind == NERVE_TOPIC_APPEARED && strcmp(e.topic, "watched/cmd_vel") == 0);
    CHECK(strcmp(e.type_name, "nerve/CmdVel") == 0);
    nerve_publisher *pub = NULL;
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_OK);
    e = next_event(w);
    CHECK(e.kind == NERVE_ENDPOINT_APPEARED && e.publisher && e.pid == (uint32_t)getpid());
    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    e = next_event(w);
    CHECK(e.kind == NERVE_ENDPOINT_GONE && e.publisher);
    EXPECT(nerve_watch_next(w, 1000000, &e), NERVE_EMPTY);
    EXPECT(nerve_topic_close(topic), NERVE_OK);
    EXPECT(nerve_watch_close(w), NERVE_OK);
    EXPECT(nerve_watch_next(w, 0, &e), NERVE_E_CLOSED);
}

static void estop(void) {
    nerve_estop *s = NULL;
    EXPECT(nerve_estop_open(NERVE_DOMAIN_DEFAULT, &s), NERVE_OK);
    char reason[64];
    uint32_t pid = 0;
    EXPECT(nerve_estop_wait(s, 0, reason, sizeof reason, &pid), NERVE_EMPTY);
    EXPECT(nerve_estop_trigger(NERVE_DOMAIN_DEFAULT, "bumper pressed"), NERVE_OK);
    EXPECT(nerve_estop_wait(s, 1000000000ll, reason, sizeof reason, &pid), NERVE_OK);
    CHECK(strcmp(reason, "bumper pressed") == 0 && pid == (uint32_t)getpid());
    EXPECT(nerve_estop_trigger(NERVE_DOMAIN_DEFAULT, "again"), NERVE_OK);
    EXPECT(nerve_estop_wait(s, 1000000000ll, reason, 4, NULL), NERVE_OK);
    CHECK(strcmp(reason, "aga") == 0); /* cut to fit */
    EXPECT(nerve_estop_close(s), NERVE_OK);
}

static int serve(void) {
    nerve_params *p = NULL;
    EXPECT(nerve_params_open("c_driver", NERVE_DOMAIN_DEFAULT, &p), NERVE_OK);
    EXPECT(nerve_param_declare(p, "max_speed", "1.5", 0.0, 3.0, "m/s"), NERVE_OK);
    nerve_estop *s = NULL;
    EXPECT(nerve_estop_open(NERVE_DOMAIN_DEFAULT, &s), NERVE_OK);
    printf("ready\n");
    fflush(stdout);
    double last = 1.5;
    for (;;) {
        char reason[64];
        int rc = nerve_estop_wait(s, 20000000ll, reason, sizeof reason, NULL);
        if (rc == NERVE_OK) {
            printf("estop %s\n", reason);
            break;
        }
        EXPECT(rc, NERVE_EMPTY);
        double v = 0;
        EXPECT(nerve_param_get_f64(p, "max_speed", &v), NERVE_OK);
        if (v != last) {
            printf("max_speed %g\n", v);
            fflush(stdout);
            last = v;
        }
    }
    EXPECT(nerve_estop_close(s), NERVE_OK);
    EXPECT(nerve_params_close(p), NERVE_OK);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "serve") == 0) {
        return serve();
    }
    parameters();
    watch();
    estop();
    printf("node: ok\n");
    return 0;
}
