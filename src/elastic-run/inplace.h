#ifndef ELASTIC_RUN_INPLACE_H
#define ELASTIC_RUN_INPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * In-place resizes: the world channel between elastic-run and the ranks
 * that use slurm_elastic's in-place API (elastic-run(1), IN-PLACE
 * RESIZES).  This part is pure: the messages, their MACs and the parsing;
 * the sockets are inplace_server.c's.
 *
 * elastic-run listens on its host (the base's batch host) and passes
 *   ELASTIC_INPLACE_ADDR=ADDR:PORT  where it listens
 *   ELASTIC_INPLACE_TOKEN=HEX       the run's secret: 64 hex digits, the
 *                                   key of every MAC (as ASCII text)
 *   ELASTIC_INPLACE_WORLD=N         the world the launched ranks are in
 *                                   (0: a joiner, in none yet)
 *   ELASTIC_INPLACE_WAIT=S          how long a rank whose collective failed
 *                                   waits for the next world
 * to the ranks.  Lines end in '\n'; MAC is the lowercase hex
 * HMAC-SHA256 of the text shown, keyed with the token; nonces are 32
 * lowercase hex digits, fresh per connection.
 *
 *   server: "elastic-inplace/1 hello SNONCE"
 *   rank:   "register CNONCE WORLD JOB NODE LOCAL PID MAC"
 *           MAC of "register SNONCE CNONCE WORLD JOB NODE LOCAL PID":
 *           the rank is local rank LOCAL on node NODE (Slurm's name) of
 *           member job JOB, in world WORLD; only the token's holders can
 *           make it, and it is bound to this connection (SNONCE).
 *   server: "world N LEN MAC" then LEN bytes of payload, MAC of
 *           "world CNONCE N LEN\n" + payload: bound to the rank's
 *           connection (CNONCE), so that no one without the token can
 *           make a rank believe a world, nor replay an old one.
 *   rank:   "joined N STEP": in world N, resuming after STEP steps.
 *   rank:   "failed N [WHY]": it cannot join world N (elastic-run takes
 *           the restart path, and says WHY: [a-z0-9-], e.g. a sharded
 *           rank's "shard-1-lost" when no live replica holds a shard).
 *
 * The payload of world N, one item per line:
 *   path in-place|restart|stop
 *   size W            ranks in the world
 *   nproc P           ranks per node
 *   master ADDR PORT  the new process group's rendezvous (rank 0 there)
 *   src R             the rank whose state everyone takes (a survivor)
 *   member JOB OFFSET NODE[,NODE...]
 *   lost ADDR[,ADDR...]  (optional) the addresses of the nodes that left
 *                     by a fault (lost, hung, split off; at most 64): the
 *                     ranks shut down their connections to them
 * A rank's new rank is OFFSET + (index of its NODE in its JOB's list) * P
 * + LOCAL; a rank in no member leaves.  "restart": checkpoint and exit
 * for the event (the restart path); "stop": the job ends, checkpoint and
 * exit.  Those two carry no other item.
 */

#define INPLACE_PROTO	  "elastic-inplace/1"
#define INPLACE_NONCE_HEX 32
#define INPLACE_TOKEN_HEX 64
#define INPLACE_MAC_HEX	  64
#define INPLACE_LINE_MAX  1024
#define INPLACE_WHY_MAX	  48 /* a failed rank's reason, '\0' included */
#define INPLACE_NODE_MAX  255
/* A world payload: the members' node lists, expanded. */
#define INPLACE_PAYLOAD_MAX (1024 * 1024)

enum inplace_path {
	INPLACE_IN_PLACE,
	INPLACE_RESTART,
	INPLACE_STOP,
};

struct inplace_reg {
	char cnonce[INPLACE_NONCE_HEX + 1];
	uint64_t world;
	uint32_t job;
	char node[INPLACE_NODE_MAX + 1];
	unsigned local;
	long pid;
};

/* n random bytes as hex into out (2n + 1 bytes): 0, or -1. */
int inplace_random_hex(char *out, size_t n);

/* The MAC of msg (len bytes) under token into mac (INPLACE_MAC_HEX + 1
 * bytes): 0, or -1. */
int inplace_mac(const char *token, const void *msg, size_t len, char *mac);

/* The server's first line into buf: its length, or -1. */
int inplace_hello(const char *snonce, char *buf, size_t len);

/*
 * A rank's register line (without its '\n') checked against the token
 * and this connection's snonce: 0 with *r filled, or -1 with *why (a
 * static string) saying what is wrong.
 */
int inplace_parse_register(const char *line, const char *token,
			   const char *snonce, struct inplace_reg *r,
			   const char **why);

/* The register line a rank sends (for the tests and the C clients): its
 * length, or -1. */
int inplace_register_line(const char *token, const char *snonce,
			  const struct inplace_reg *r, char *buf, size_t len);

/* The header line of world n with payload (plen bytes) for the rank of
 * cnonce, "\n" included: its length, or -1. */
int inplace_world_header(const char *token, const char *cnonce, uint64_t n,
			 const char *payload, size_t plen, char *buf,
			 size_t len);

/*
 * A rank's later line: "joined N STEP" (*step set) or "failed N [WHY]"
 * (*step = -1, why[INPLACE_WHY_MAX] WHY or "").  0 with *n set, or -1
 * (not one of them).
 */
int inplace_parse_status(const char *line, uint64_t *n, long long *step,
			 char *why);

const char *inplace_path_name(enum inplace_path p);

#endif
