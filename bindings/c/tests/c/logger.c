/* Log records from C (bindings/python/tests/test_logs.py reads them with `nerve log`): five
 * INFO records in order, a DEBUG one below the default level (not sent), then DEBUG enabled. */
#include <stdio.h>
#include "check.h"

int main(void) {
    char msg[64];
    for (int i = 0; i < 5; i++) {
        snprintf(msg, sizeof msg, "c record %d", i);
        EXPECT(NERVE_INFO(msg), NERVE_OK);
    }
    EXPECT(NERVE_DEBUG("hidden debug"), NERVE_OK);
    EXPECT(nerve_log_set_level(NERVE_LOG_DEBUG), NERVE_OK);
    EXPECT(NERVE_DEBUG("debug now shows"), NERVE_OK);
    EXPECT(nerve_log(9, NULL, 0, "x"), NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_log(NERVE_LOG_INFO, NULL, 0, NULL), NERVE_E_INVALID_ARGUMENT);
    CHECK(nerve_log_dropped() == 0);
    printf("logged\n");
    return 0;
}
