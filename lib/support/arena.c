//===- arena.c - Chunked bump allocator -----------------------------------===//
//
// Invariant: an arena is a singly linked list of chunks, newest first. Each
// chunk's payload starts 16-byte aligned; `used` bytes of the newest chunk are
// handed out, always a multiple of 16, so the next allocation is aligned too.
// Chunks come from calloc and memory is never reused, so every allocation is
// zeroed without a memset. A request larger than the chunk size gets a chunk
// of its own (placed behind the current one, so the current chunk keeps its
// free tail). Nothing is freed individually; mg_arena_destroy frees all.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

#include <stdint.h>
#include <stdlib.h>

#define ARENA_ALIGN 16u
#define ARENA_MIN_CHUNK 4096u

typedef struct ArenaChunk {
  struct ArenaChunk *next;
  size_t capacity; // payload bytes
  size_t used;     // payload bytes handed out (multiple of ARENA_ALIGN)
  unsigned char *payload;
} ArenaChunk;

struct MgArena {
  ArenaChunk *head;   // current chunk (bump target), NULL before first use
  size_t chunk_bytes; // default payload size of a new chunk
  size_t bytes_used;  // sum of rounded allocation sizes
};

static size_t round_up(size_t n) {
  return (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
}

static ArenaChunk *new_chunk(size_t capacity) {
  // Header, then up to ARENA_ALIGN-1 bytes of padding, then the payload.
  if (capacity > SIZE_MAX - sizeof(ArenaChunk) - ARENA_ALIGN)
    return NULL;
  unsigned char *raw = calloc(1, sizeof(ArenaChunk) + ARENA_ALIGN + capacity);
  if (!raw)
    return NULL;
  ArenaChunk *c = (ArenaChunk *)(void *)raw;
  uintptr_t p = (uintptr_t)(raw + sizeof(ArenaChunk));
  p = (p + (ARENA_ALIGN - 1)) & ~(uintptr_t)(ARENA_ALIGN - 1);
  c->payload = (unsigned char *)p;
  c->capacity = capacity;
  return c;
}

MgArena *mg_arena_create(size_t chunk_bytes) {
  MgArena *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  if (chunk_bytes < ARENA_MIN_CHUNK)
    chunk_bytes = ARENA_MIN_CHUNK;
  if (chunk_bytes > SIZE_MAX / 2)
    chunk_bytes = SIZE_MAX / 2;
  a->chunk_bytes = round_up(chunk_bytes);
  return a;
}

void mg_arena_destroy(MgArena *arena) {
  if (!arena)
    return;
  ArenaChunk *c = arena->head;
  while (c) {
    ArenaChunk *next = c->next;
    free(c);
    c = next;
  }
  free(arena);
}

void *mg_arena_alloc(MgArena *arena, size_t count, size_t size) {
  if (!arena)
    return NULL;
  if (size != 0 && count > SIZE_MAX / size)
    return NULL; // count * size overflows
  size_t bytes = count * size;
  if (bytes == 0)
    bytes = 1; // distinct, valid pointer for empty requests
  if (bytes > SIZE_MAX - ARENA_ALIGN)
    return NULL;
  bytes = round_up(bytes);

  ArenaChunk *c = arena->head;
  if (!c || c->capacity - c->used < bytes) {
    if (bytes > arena->chunk_bytes) {
      // Oversized: a dedicated chunk, linked behind the current one so the
      // current chunk's free tail stays usable.
      ArenaChunk *big = new_chunk(bytes);
      if (!big)
        return NULL;
      big->used = bytes;
      if (c) {
        big->next = c->next;
        c->next = big;
      } else {
        arena->head = big;
      }
      arena->bytes_used += bytes;
      return big->payload;
    }
    ArenaChunk *fresh = new_chunk(arena->chunk_bytes);
    if (!fresh)
      return NULL;
    fresh->next = c;
    arena->head = fresh;
    c = fresh;
  }
  MG_ASSERT(c->used % ARENA_ALIGN == 0 && c->capacity - c->used >= bytes);
  void *p = c->payload + c->used;
  c->used += bytes;
  arena->bytes_used += bytes;
  return p;
}

size_t mg_arena_bytes_used(const MgArena *arena) {
  return arena ? arena->bytes_used : 0;
}
