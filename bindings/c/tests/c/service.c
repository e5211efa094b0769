/* Services from C: a C server (two workers) called from C; a Rust server (started by the test,
 * `test_c/upper`) called from C; a handler's error, a buffer too small, a service nobody
 * serves, a second server refused, too many workers refused, and a handler that closes its own
 * server ("quit"). */
#include <ctype.h>
#include <stdint.h>
#include "check.h"

/* Reverses the request; "fail" fails with a message. */
static int reverse(void *context, const uint8_t *request, size_t len, nerve_reply *reply) {
    int *calls = (int *)context;
    __atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
    if (len == 4 && memcmp(request, "fail", 4) == 0) {
        return nerve_reply_error(reply, "asked to fail");
    }
    uint8_t out[256];
    CHECK(len <= sizeof out);
    for (size_t i = 0; i < len; i++) {
        out[i] = request[len - 1 - i];
    }
    return nerve_reply_set(reply, out, len);
}

/* Closes its own server (the context) and answers "bye". */
static nerve_server *quitting = NULL;
static int quit_status = -1;
static int quit(void *context, const uint8_t *request, size_t len, nerve_reply *reply) {
    (void)context;
    (void)request;
    (void)len;
    quit_status = nerve_server_close(quitting);
    return nerve_reply_set(reply, (const uint8_t *)"bye", 3);
}

int main(void) {
    int calls = 0;
    nerve_server *server = NULL;
    EXPECT(nerve_server_open("test_c/reverse", NERVE_DOMAIN_DEFAULT, 2, reverse, &calls, &server),
           NERVE_OK);
    nerve_server *second = NULL;
    EXPECT(nerve_server_open("test_c/reverse", NERVE_DOMAIN_DEFAULT, 1, reverse, &calls, &second),
           NERVE_E_ALREADY_SERVED);
    EXPECT(nerve_server_open("test_c/other", NERVE_DOMAIN_DEFAULT, 1, NULL, NULL, &second),
           NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_server_open("test_c/many", NERVE_DOMAIN_DEFAULT, 100000, reverse, &calls, &second),
           NERVE_E_INVALID_ARGUMENT);
    SAYS("at most 256");

    nerve_client *client = NULL;
    EXPECT(nerve_client_open("test_c/reverse", NERVE_DOMAIN_DEFAULT, &client), NERVE_OK);
    uint8_t resp[256];
    size_t len = 0;
    for (int i = 0; i < 500; i++) {
        char req[32];
        int n = snprintf(req, sizeof req, "call %d", i);
        EXPECT(nerve_call(client, (const uint8_t *)req, (size_t)n, 2000000000, resp, sizeof resp, &len),
               NERVE_OK);
        CHECK(len == (size_t)n);
        for (int k = 0; k < n; k++) {
            CHECK(resp[k] == (uint8_t)req[n - 1 - k]);
        }
    }
    CHECK(__atomic_load_n(&calls, __ATOMIC_RELAXED) == 500);
    EXPECT(nerve_call(client, (const uint8_t *)"fail", 4, 2000000000, resp, sizeof resp, &len),
           NERVE_E_HANDLER);
    SAYS("asked to fail");
    EXPECT(nerve_call(client, (const uint8_t *)"0123456789", 10, 2000000000, resp, 4, &len),
           NERVE_E_BUFFER_TOO_SMALL);
    CHECK(len == 10);

    /* The Rust server of the test. */
    nerve_client *upper = NULL;
    EXPECT(nerve_client_open("test_c/upper", NERVE_DOMAIN_DEFAULT, &upper), NERVE_OK);
    EXPECT(nerve_call(upper, (const uint8_t *)"from c", 6, 2000000000, resp, sizeof resp, &len),
           NERVE_OK);
    CHECK(len == 6 && memcmp(resp, "FROM C", 6) == 0);

    /* Nobody serves it. */
    nerve_client *nobody = NULL;
    EXPECT(nerve_client_open("test_c/nobody", NERVE_DOMAIN_DEFAULT, &nobody), NERVE_OK);
    EXPECT(nerve_call(nobody, (const uint8_t *)"x", 1, 100000000, resp, sizeof resp, &len),
           NERVE_E_NO_SERVER);
    SAYS("test_c/nobody");

    /* Closed: the client refuses, the server no longer answers. */
    EXPECT(nerve_server_close(server), NERVE_OK);
    EXPECT(nerve_call(client, (const uint8_t *)"x", 1, 100000000, resp, sizeof resp, &len),
           NERVE_E_NO_SERVER);
    EXPECT(nerve_client_close(client), NERVE_OK);
    EXPECT(nerve_call(client, (const uint8_t *)"x", 1, 100000000, resp, sizeof resp, &len),
           NERVE_E_CLOSED);
    EXPECT(nerve_client_close(upper), NERVE_OK);
    EXPECT(nerve_client_close(nobody), NERVE_OK);

    /* A handler closing its own server: it answers, the close succeeds, the service is down. */
    for (int workers = 1; workers <= 2; workers++) {
        EXPECT(nerve_server_open("test_c/quit", NERVE_DOMAIN_DEFAULT, (uint32_t)workers, quit, NULL,
                                 &quitting),
               NERVE_OK);
        nerve_client *q = NULL;
        EXPECT(nerve_client_open("test_c/quit", NERVE_DOMAIN_DEFAULT, &q), NERVE_OK);
        quit_status = -1;
        EXPECT(nerve_call(q, (const uint8_t *)"x", 1, 2000000000, resp, sizeof resp, &len), NERVE_OK);
        CHECK(len == 3 && memcmp(resp, "bye", 3) == 0);
        CHECK(quit_status == NERVE_OK);
        /* Down once the closing handler has returned (a call in that instant hears that the
         * server stopped during it). */
        int rc = NERVE_OK;
        for (int tries = 0; tries < 200 && rc != NERVE_E_NO_SERVER; tries++) {
            rc = nerve_call(q, (const uint8_t *)"x", 1, 100000000, resp, sizeof resp, &len);
            CHECK(rc == NERVE_E_NO_SERVER || rc == NERVE_E_SERVER_DIED);
        }
        CHECK(rc == NERVE_E_NO_SERVER);
        EXPECT(nerve_client_close(q), NERVE_OK);
    }
    printf("service: 500 calls checked, C and Rust servers, a server closed by its handler\n");
    return 0;
}
