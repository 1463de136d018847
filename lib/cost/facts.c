//===- facts.c - What ptxas made of our kernels, read from its -v output --===//
//
// `ptxas -v` prints, per entry function, a block of lines:
//   ptxas info    : Compiling entry function 'F_gpu_k2' for 'sm_90'
//   ptxas info    : Function properties for F_gpu_k2
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 40 registers, used 1 barriers, 3760 bytes smem, ...
// The "Used" line belongs to the entry named last; its smem figure is
// missing when the kernel has none. lib/lower names a kernel
// "<module>_k<op>", so the name gives the root op the facts are for. From
// the PTX: the largest N of `cp.async.wait_group N` per `.entry` (how many
// groups an iteration leaves in flight: the pipeline's depth).
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

// The op of kernel `name` ("<module>_k<op>", the name ending there), or
// -1 when it is not one of the module's kernels or op >= num_ops.
static int64_t kernel_op(const char *name, size_t len, const char *module,
                         uint32_t num_ops) {
  size_t m = strlen(module);
  if (len <= m + 2 || strncmp(name, module, m) != 0 || name[m] != '_' ||
      name[m + 1] != 'k')
    return -1;
  int64_t op = 0;
  for (size_t i = m + 2; i < len; i++) {
    if (!isdigit((unsigned char)name[i]) || op > (int64_t)num_ops)
      return -1;
    op = op * 10 + (name[i] - '0');
  }
  return op < (int64_t)num_ops ? op : -1;
}

// The number just before `at` in `line` (digits back to a non-digit).
static int64_t number_before(const char *line, const char *at) {
  const char *q = at;
  while (q > line && q[-1] == ' ')
    q--;
  while (q > line && isdigit((unsigned char)q[-1]))
    q--;
  return strtoll(q, NULL, 10);
}

// The entry named between quotes after `key`, or after `key` up to the
// line's end: its op, or -1.
static int64_t entry_of(const char *line, const char *key, const char *module,
                        uint32_t num_ops) {
  const char *p = strstr(line, key);
  if (!p)
    return -2; // not such a line
  p += strlen(key);
  while (*p == ' ' || *p == '\'')
    p++;
  size_t n = strcspn(p, "'\r\n ");
  return kernel_op(p, n, module, num_ops);
}

static void scan_line(const char *line, const char *module,
                      MgKernelFacts *facts, uint32_t num_ops, int64_t *cur,
                      uint32_t *filled) {
  int64_t e = entry_of(line, "Compiling entry function", module, num_ops);
  if (e == -2)
    e = entry_of(line, "Function properties for", module, num_ops);
  if (e != -2) {
    *cur = e;
    if (e >= 0 && !facts[e].known) {
      MgKernelFacts f = {true, 0, 0, 0, 0, 0, facts[e].async_wait};
      facts[e] = f;
      ++*filled;
    }
    return;
  }
  if (*cur < 0)
    return;
  MgKernelFacts *f = &facts[*cur];
  const char *p;
  if ((p = strstr(line, "bytes stack frame")))
    f->stack_bytes = number_before(line, p);
  if ((p = strstr(line, "bytes spill stores")))
    f->spill_stores = number_before(line, p);
  if ((p = strstr(line, "bytes spill loads")))
    f->spill_loads = number_before(line, p);
  if ((p = strstr(line, "Used ")) && strstr(p, "registers"))
    f->registers = (int)strtol(p + 5, NULL, 10);
  if ((p = strstr(line, "bytes smem")))
    f->smem_static = number_before(line, p);
}

// cp.async.wait_group depths per entry of `ptx`.
static void scan_ptx(const char *ptx, const char *module, MgKernelFacts *facts,
                     uint32_t num_ops) {
  int64_t cur = -1;
  for (const char *line = ptx; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *p = strstr(line, ".entry ");
    if (p && p < line + len) {
      p += 7;
      cur = kernel_op(p, strcspn(p, "( \r\n"), module, num_ops);
    } else if (cur >= 0 && (p = strstr(line, "cp.async.wait_group")) &&
               p < line + len) {
      int n = (int)strtol(p + strlen("cp.async.wait_group"), NULL, 10);
      if (n > facts[cur].async_wait)
        facts[cur].async_wait = n;
    }
    line = end ? end + 1 : NULL;
  }
}

uint32_t mg_cost_facts_parse(const char *log, const char *ptx,
                             const char *module, MgKernelFacts *facts,
                             uint32_t num_ops) {
  if (!log || !module || !facts)
    return 0;
  for (uint32_t i = 0; i < num_ops; i++)
    if (!facts[i].known)
      facts[i].async_wait = -1;
  if (ptx)
    scan_ptx(ptx, module, facts, num_ops);
  int64_t cur = -1;
  uint32_t filled = 0;
  char line[1024];
  for (const char *s = log; *s;) {
    size_t n = strcspn(s, "\n");
    size_t k = n < sizeof line - 1 ? n : sizeof line - 1;
    memcpy(line, s, k);
    line[k] = 0;
    scan_line(line, module, facts, num_ops, &cur, &filled);
    s += n;
    if (*s)
      s++;
  }
  // Only kernels ptxas reported are facts; a depth alone is not.
  for (uint32_t i = 0; i < num_ops; i++)
    if (!facts[i].known)
      facts[i].async_wait = -1;
  return filled;
}
