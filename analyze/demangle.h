/* SPDX-License-Identifier: MIT */
/*
 * C++ names (the Itanium C++ ABI's mangling, "_Z...") shown as a person reads them:
 * `vadd(float*, float const*, int)` for `_Z4vaddPfPKfi`, with the C++ runtime's own demangler
 * (__cxa_demangle, libstdc++), as elfutils does.
 *
 * The names come from code objects and libraries a core names: hostile. The demangler's work
 * grows with its input (libstdc++ keeps two components per byte on the stack) and, worse, its
 * output can grow exponentially with the name's back-references (S<n>_, T<n>_): each level of
 * `PFvS<n>_S<n>_E` doubles it, and a 237-byte name printed 184 MB in 11 s. So a name is
 * demangled only within the limits below; past one, or when the demangler refuses the name,
 * the caller shows the mangled name: demangling never fails a report. No printing, no global
 * state; thread-safe as __cxa_demangle is.
 */
#ifndef GC_ANALYZE_DEMANGLE_H
#define GC_ANALYZE_DEMANGLE_H

#include <stddef.h>

/* Longest mangled name demangled, in bytes. The C++ runtime's demangler measured here (GCC 12's
   libstdc++) refuses longer names itself; the bound keeps every runtime's stack arrays (about
   2 components of 32 bytes per input byte, and the substitution table) near 64 KB. */
#define GC_DEMANGLE_NAME_MAX 1024u
/* Most back-references (substitutions S_, S<seq>_ and template parameters T_, T<n>_) in a name
   demangled. k references to one earlier component multiply the output by k, so N references
   multiply it by at most about 1.45^N (e^(N/e)): 24 allow at most a few thousand times the
   plain text; the doubling form above printed 180 KB in 22 ms at 24 and 184 MB in 11 s at 44.
   A name past the bound is shown mangled (hip_vadd's kernel has 1). */
#define GC_DEMANGLE_REFS_MAX 24u
/* Longest demangled text kept, in bytes with the NUL: a longer one is not shown (the mangled
   name is) rather than cut. */
#define GC_DEMANGLE_TEXT_MAX 4096u

/*
 * gc_demangle: the demangled form of @p name into @p buf (@p size bytes, the caller's).
 * Returns 1 when buf holds it; 0 when @p name is not a mangled C++ name ("_Z" prefix), is
 * longer than GC_DEMANGLE_NAME_MAX, has more than GC_DEMANGLE_REFS_MAX back-references, the
 * demangler refuses it or runs out of memory, or its text does not fit @p size (or
 * GC_DEMANGLE_TEXT_MAX): then buf is "" (when size > 0). @p name may be NULL (0).
 */
int gc_demangle(const char *name, char *buf, size_t size);

/*
 * gc_demangle_symbol: as gc_demangle, for a symbol as the report writes it, "NAME" or
 * "NAME+0xHEX": the demangled NAME followed by the same "+0xHEX". Same returns.
 */
int gc_demangle_symbol(const char *symbol, char *buf, size_t size);

#endif /* GC_ANALYZE_DEMANGLE_H */
