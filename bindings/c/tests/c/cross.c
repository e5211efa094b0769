/* A C node sharing nerve's standard CmdVel with a Python node (bindings/python/tests/
 * test_c_api.py): it publishes 100 on `cross/from_c` once told "go" on stdin, then receives 100
 * on `cross/from_py` and checks every field. The struct is laid out as the Rust type; its
 * nerve_type comes from nerve_standard_type, so the topics are the same type in all three
 * languages. */
#include <stdint.h>
#include "check.h"

typedef struct {
    uint64_t stamp_ns;
    float linear;
    float angular;
} CmdVel;

int main(void) {
    nerve_type cmd_vel;
    EXPECT(nerve_standard_type("CmdVel", &cmd_vel), NERVE_OK);
    CHECK(cmd_vel.size == sizeof(CmdVel) && cmd_vel.align == _Alignof(CmdVel));
    CHECK(strcmp(cmd_vel.name, "nerve/CmdVel") == 0 && cmd_vel.description_len > 0);
    nerve_type none;
    EXPECT(nerve_standard_type("NoSuchType", &none), NERVE_E_NOT_FOUND);

    nerve_topic_options options = nerve_topic_options_default();
    options.depth = 256;
    options.reliability = NERVE_RELIABLE;
    nerve_topic *out_topic = NULL, *in_topic = NULL;
    EXPECT(nerve_topic_open("cross/from_c", &cmd_vel, &options, &out_topic), NERVE_OK);
    EXPECT(nerve_topic_open("cross/from_py", &cmd_vel, &options, &in_topic), NERVE_OK);
    nerve_publisher *pub = NULL;
    nerve_subscriber *sub = NULL;
    EXPECT(nerve_publisher_open(out_topic, &pub), NERVE_OK);
    EXPECT(nerve_subscriber_open(in_topic, 0, &sub), NERVE_OK);
    printf("ready\n");
    fflush(stdout);
    char line[16];
    CHECK(fgets(line, sizeof line, stdin) != NULL && strncmp(line, "go", 2) == 0);

    for (uint64_t i = 0; i < 100; i++) {
        CmdVel m = {.stamp_ns = 1000 + i, .linear = 0.5f * (float)i, .angular = -(float)i};
        EXPECT(nerve_publish(pub, (const uint8_t *)&m, sizeof m), NERVE_OK);
    }
    for (uint64_t i = 0; i < 100; i++) {
        CmdVel m;
        size_t len = 0;
        EXPECT(nerve_recv(sub, 5000000000ll, (uint8_t *)&m, sizeof m, &len), NERVE_OK);
        CHECK(len == sizeof m && m.stamp_ns == 2000 + i && m.linear == 0.25f * (float)i &&
              m.angular == (float)i);
    }
    printf("received 100\n");
    fflush(stdout);
    EXPECT(nerve_subscriber_close(sub), NERVE_OK);
    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    EXPECT(nerve_topic_close(in_topic), NERVE_OK);
    EXPECT(nerve_topic_close(out_topic), NERVE_OK);
    return 0;
}
