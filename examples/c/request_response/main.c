/* request_response in C: a service `arm/plan` served by a C handler on nerve's threads, and a
 * client calling it; a handler's failure reaches the caller with its message.
 *   cmake -S examples/c/request_response -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
 *   cmake --build build && ./build/request_response */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "nerve.h"

/* Plans `steps` waypoints: answers "plan: N steps"; more than 100 is refused. */
static int plan(void *context, const uint8_t *request, size_t len, nerve_reply *reply) {
    (void)context;
    char text[64];
    unsigned steps = 0;
    snprintf(text, sizeof text, "%.*s", (int)len, (const char *)request);
    if (sscanf(text, "%u", &steps) != 1 || steps > 100) {
        return nerve_reply_error(reply, "steps must be a number up to 100");
    }
    int n = snprintf(text, sizeof text, "plan: %u steps", steps);
    return nerve_reply_set(reply, (const uint8_t *)text, (size_t)n);
}

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, nerve_last_error());
    return 1;
}

int main(void) {
    nerve_server *server;
    if (nerve_server_open("arm/plan", NERVE_DOMAIN_DEFAULT, 1, plan, NULL, &server) != NERVE_OK)
        return fail("serve arm/plan");
    nerve_client *client;
    if (nerve_client_open("arm/plan", NERVE_DOMAIN_DEFAULT, &client) != NERVE_OK)
        return fail("client");
    const char *requests[] = {"3", "12", "500"};
    for (int i = 0; i < 3; i++) {
        uint8_t resp[64];
        size_t len;
        int rc = nerve_call(client, (const uint8_t *)requests[i], strlen(requests[i]),
                            1000000000, resp, sizeof resp, &len);
        if (rc == NERVE_OK) {
            printf("%s -> %.*s\n", requests[i], (int)len, (const char *)resp);
        } else if (rc == NERVE_E_HANDLER) {
            printf("%s -> refused: %s\n", requests[i], nerve_last_error());
        } else {
            return fail("call");
        }
    }
    nerve_client_close(client);
    nerve_server_close(server);
    return 0;
}
