/* Message structs in C: every generated standard struct gives its nerve_type (checked against
 * the layout hash compiled into nerve/msgs.h), and structs declared with NERVE_STRUCT describe
 * themselves as Rust's #[derive(Message)] does (tests/c_api.rs checks they are one type):
 *   declared                    the checks below;
 *   declared publish <topic>    says "ready", waits for "go", publishes 20 WheelCmd;
 *   declared wrong-open <topic> opens <topic> with a WheelCmd of other fields: expects
 *                               NERVE_E_TYPE_MISMATCH and prints its text;
 *   declared wrong-hold <topic> creates <topic> with that WheelCmd, says "ready", holds it
 *                               until stdin closes. */
#include <stdint.h>
#include "check.h"
#include "nerve/msgs.h"

/* The same definition as the Rust WheelCmd in tests/c_api.rs. */
typedef struct {
    nerve_msgs_Header header;
    double left;  /* rad/s */
    double right; /* rad/s */
    uint32_t seq;
    uint8_t mode;
    uint8_t _pad0[3];
} WheelCmd;
NERVE_STRUCT(WheelCmd, "test_c/WheelCmd", NERVE_FIELD(WheelCmd, header, "Header"),
             NERVE_FIELD(WheelCmd, left, "f64"), NERVE_FIELD(WheelCmd, right, "f64"),
             NERVE_FIELD(WheelCmd, seq, "u32"), NERVE_FIELD(WheelCmd, mode, "u8"),
             NERVE_FIELD(WheelCmd, _pad0, "u8[3]"))

/* Another program's idea of test_c/WheelCmd: right is f32, seq u64. */
typedef struct {
    nerve_msgs_Header header;
    double left;
    float right;
    uint32_t _pad0;
    uint64_t seq;
} WrongWheelCmd;
NERVE_STRUCT(WrongWheelCmd, "test_c/WheelCmd", NERVE_FIELD(WrongWheelCmd, header, "Header"),
             NERVE_FIELD(WrongWheelCmd, left, "f64"), NERVE_FIELD(WrongWheelCmd, right, "f32"),
             NERVE_FIELD(WrongWheelCmd, _pad0, "u32"), NERVE_FIELD(WrongWheelCmd, seq, "u64"))

/* A nested user struct, and a chunked message of them. */
typedef struct {
    float x, y;
    uint16_t id;
    uint8_t _pad0[2];
} Blob;
NERVE_NESTED_STRUCT(Blob, NERVE_FIELD(Blob, x, "f32"), NERVE_FIELD(Blob, y, "f32"),
                    NERVE_FIELD(Blob, id, "u16"), NERVE_FIELD(Blob, _pad0, "u8[2]"))
typedef struct {
    nerve_msgs_Header header;
    Blob biggest[2];
    uint32_t count;
    uint32_t _pad0;
} BlobsHeader;
NERVE_CHUNKED_STRUCT_OF(BlobsHeader, "test_c/Blobs", Blob, Blob_nerve_type,
                     NERVE_FIELD(BlobsHeader, header, "Header"),
                     NERVE_FIELD_OF(BlobsHeader, biggest, Blob_nerve_type, 2),
                     NERVE_FIELD(BlobsHeader, count, "u32"),
                     NERVE_FIELD(BlobsHeader, _pad0, "u32"))

/* Mistakes a declaration must catch, naming the field. */
typedef struct {
    uint8_t flag;
    double value; /* the compiler pads 7 bytes before it */
} Padded;
NERVE_STRUCT(Padded, "test_c/Padded", NERVE_FIELD(Padded, flag, "u8"),
             NERVE_FIELD(Padded, value, "f64"))
typedef struct {
    double a;
    float b;
    float c;
} WrongKind;
NERVE_STRUCT(WrongKind, "test_c/WrongKind", NERVE_FIELD(WrongKind, a, "f64"),
             NERVE_FIELD(WrongKind, b, "f64"))
typedef struct {
    double a;
} UnknownKind;
NERVE_STRUCT(UnknownKind, "test_c/UnknownKind", NERVE_FIELD(UnknownKind, a, "float64"))

static nerve_topic_options reliable(void) {
    nerve_topic_options o = nerve_topic_options_default();
    o.depth = 32;
    o.reliability = NERVE_RELIABLE;
    return o;
}

static void standard_types(void) {
    nerve_type t;
    int n = 0;
#define FIXED(T)                                                                         \
    EXPECT(nerve_msgs_##T##_type(&t), NERVE_OK);                                         \
    CHECK(t.kind == NERVE_KIND_FIXED && t.size == sizeof(nerve_msgs_##T) &&              \
          t.align == _Alignof(nerve_msgs_##T) && t.description_len > 0);                 \
    n++;
    NERVE_MSGS_EACH_FIXED(FIXED)
#define CHUNKED(T, HEADER)                                                               \
    EXPECT(nerve_msgs_##T##_type(&t), NERVE_OK);                                         \
    CHECK(t.kind == NERVE_KIND_CHUNKED && t.size == sizeof(nerve_msgs_##HEADER) &&       \
          t.elem_size == sizeof(nerve_msgs_##T##_elem));                                 \
    n++;
    NERVE_MSGS_EACH_CHUNKED(CHUNKED)
#define STRUCT(T)                                                                        \
    EXPECT(nerve_msgs_##T##_type(&t), NERVE_OK);                                         \
    CHECK(t.kind == NERVE_KIND_STRUCT && t.size == sizeof(nerve_msgs_##T));              \
    n++;
    NERVE_MSGS_EACH_STRUCT(STRUCT)
    printf("%d standard types agree with libnerve_c\n", n);
    /* A header of another nerve version than the library is refused. */
    EXPECT(nerve_standard_type_checked("Imu", 1, &t), NERVE_E_TYPE_MISMATCH);
    SAYS("in the header this program was compiled with");
    EXPECT(nerve_standard_type("NoSuchType", &t), NERVE_E_NOT_FOUND);
}

static void declarations(void) {
    nerve_type t, again;
    EXPECT(WheelCmd_nerve_type(&t), NERVE_OK);
    CHECK(t.kind == NERVE_KIND_FIXED && t.size == sizeof(WheelCmd) && t.description_len > 0);
    CHECK(strcmp(t.name, "test_c/WheelCmd") == 0);
    EXPECT(WheelCmd_nerve_type(&again), NERVE_OK);
    CHECK(again.layout_hash == t.layout_hash && again.description == t.description);
    printf("WheelCmd %#018llx\n", (unsigned long long)t.layout_hash);
    EXPECT(WrongWheelCmd_nerve_type(&again), NERVE_OK);
    CHECK(again.layout_hash != t.layout_hash);

    EXPECT(BlobsHeader_nerve_type(&t), NERVE_OK);
    CHECK(t.kind == NERVE_KIND_CHUNKED && t.size == sizeof(BlobsHeader) &&
          t.elem_size == sizeof(Blob));
    nerve_topic_options o = reliable();
    o.max_message_bytes = 1 << 16;
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open("test_c/blobs", &t, &o, &topic), NERVE_OK);
    EXPECT(nerve_topic_close(topic), NERVE_OK);

    EXPECT(Padded_nerve_type(&t), NERVE_E_INVALID_ARGUMENT);
    SAYS("test_c/Padded.value would start at byte 1");
    SAYS("_pad1");
    EXPECT(WrongKind_nerve_type(&t), NERVE_E_TYPE_MISMATCH);
    SAYS("test_c/WrongKind.b");
    EXPECT(UnknownKind_nerve_type(&t), NERVE_E_INVALID_ARGUMENT);
    SAYS("unknown field kind \"float64\"");
    static const nerve_field both[] = {{"a", "f64", Blob_nerve_type, 0, 0, 8}};
    EXPECT(nerve_type_declare("test_c/Both", NERVE_KIND_FIXED, both, 1, 8, 8, NULL, &t),
           NERVE_E_INVALID_ARGUMENT);
    SAYS("not both");
    EXPECT(nerve_type_declare("test_c/None", NERVE_KIND_FIXED, NULL, 0, 8, 8, NULL, &t),
           NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_type_declare("test_c/Chunked", NERVE_KIND_CHUNKED, both, 1, 8, 8, NULL, &t),
           NERVE_E_INVALID_ARGUMENT);
}

static int publish(const char *name) {
    nerve_type t;
    EXPECT(WheelCmd_nerve_type(&t), NERVE_OK);
    nerve_topic_options o = reliable();
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open(name, &t, &o, &topic), NERVE_OK);
    nerve_publisher *pub = NULL;
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_OK);
    printf("ready\n");
    fflush(stdout);
    char line[16];
    CHECK(fgets(line, sizeof line, stdin) != NULL && strncmp(line, "go", 2) == 0);
    for (uint32_t i = 0; i < 20; i++) {
        WheelCmd m;
        memset(&m, 0, sizeof m);
        m.header.seq = i;
        strcpy(m.header.frame_id, "base_link");
        m.left = 0.5 * i;
        m.right = -0.5 * i;
        m.seq = i;
        m.mode = (uint8_t)(i % 3);
        EXPECT(nerve_publish(pub, (const uint8_t *)&m, sizeof m), NERVE_OK);
    }
    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    EXPECT(nerve_topic_close(topic), NERVE_OK);
    return 0;
}

static int wrong(const char *name, int hold) {
    nerve_type t;
    EXPECT(WrongWheelCmd_nerve_type(&t), NERVE_OK);
    nerve_topic_options o = reliable();
    nerve_topic *topic = NULL;
    if (!hold) {
        EXPECT(nerve_topic_open(name, &t, &o, &topic), NERVE_E_TYPE_MISMATCH);
        printf("%s\n", nerve_last_error());
        return 0;
    }
    EXPECT(nerve_topic_open(name, &t, &o, &topic), NERVE_OK);
    printf("ready\n");
    fflush(stdout);
    char line[16];
    while (fgets(line, sizeof line, stdin) != NULL) {
    }
    EXPECT(nerve_topic_close(topic), NERVE_OK);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "publish") == 0) {
        return publish(argv[2]);
    }
    if (argc == 3 && strncmp(argv[1], "wrong-", 6) == 0) {
        return wrong(argv[2], strcmp(argv[1], "wrong-hold") == 0);
    }
    standard_types();
    declarations();
    printf("declared: ok\n");
    return 0;
}
