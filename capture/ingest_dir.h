/* SPDX-License-Identifier: MIT */
/*
 * The files of `gpucore ingest` in its output directory, every one reached relative to a
 * descriptor of that directory, which the caller opened once (for --dir and --store checked by
 * the store's rules: store.h, gc_store_open_private_dir()). The directory may be the crashing
 * user's while ingest runs as root (the kernel's core_pattern handler pairs its host half
 * with the GPU half the user's runtime wrote there), so its entries are hostile: a name may be
 * a file the user made, a symlink to any file, a hard link to another user's file, a FIFO.
 *
 * - A core is written under a fresh hidden name (gc_ingest_tmp_path(): ".NAME.XXXXXX", random,
 *   created by libcore's writer, which never replaces an entry) and only then given its name
 *   (gc_ingest_publish()): NAME when no entry has it, else the first free NAME.1 .. NAME.16,
 *   then random names; never over an entry, never through a symlink. An entry a user made at
 *   the name, before or while the stream was read, therefore never costs the crash.
 * - A file is read only when it is a regular file with a single link, opened O_NOFOLLOW |
 *   O_NONBLOCK | O_NOCTTY (gc_ingest_open_in()): a symlink is never followed, a FIFO never
 *   waited on, a device never opened, a hard link to a file elsewhere never read.
 *
 * Nothing here prints or exits.
 */
#ifndef GPUCORE_INGEST_DIR_H
#define GPUCORE_INGEST_DIR_H

#include <stddef.h>
#include <sys/stat.h>

#include <gpucore/status.h>

/* NAME.1 .. NAME.16 are tried after NAME: readable names for the common case (a duplicate, a
   leftover); past them a user filled the names on purpose, and random ones follow. */
#define GC_INGEST_NAME_TRIES_SEQUENTIAL 16u
/* Random names tried then, and random hidden names for the temporary file (each of
   GC_INGEST_NAME_RANDOM_CHARS characters: no one fills them all). */
#define GC_INGEST_NAME_TRIES_RANDOM 64u
/* Random characters in a name, of 62: 62^8 (about 2^47) names, more than anyone makes. */
#define GC_INGEST_NAME_RANDOM_CHARS 8u
/* A name longer than this is refused (NAME_MAX less room for ".NAME.XXXXXXXX" and ".16"). */
#define GC_INGEST_NAME_MAX 200u

/*
 * A fresh hidden name for writing the file @p name in the directory @p dirfd: ".NAME.XXXXXXXX"
 * (no entry of that name exists now) in @p tmp, and in @p path the path by which a library
 * that takes paths (libcore's writer) reaches it through the same directory: /proc/self/fd/N/
 * followed by the hidden name, which names the very directory @p dirfd is open on whatever
 * happens to @p dir_path meanwhile; @p dir_path/.NAME... only when /proc is not mounted.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  @p name is empty, ".", "..", longer than GC_INGEST_NAME_MAX or holds
 *                          a '/'; a buffer too small
 * @retval GPUCORE_E_IO     the directory cannot be looked at, or no free hidden name was found
 */
gpucore_status_t gc_ingest_tmp_path(int dirfd, const char *dir_path, const char *name, char *tmp,
                                    size_t tmp_size, char *path, size_t path_size,
                                    gpucore_diag_t *reterr_diag);

/*
 * Give the file @p tmp of @p dirfd its name: @p name if no entry has it, else a free one as
 * the header says ("gpucore.42.gpu.zst" -> "gpucore.42.gpu.1.zst": a last ".zst" stays last);
 * with renameat2(RENAME_NOREPLACE), or link() and unlink() where the filesystem lacks it,
 * so no entry is ever replaced; then the directory is synced. @p ret_name (at least
 * GC_INGEST_NAME_MAX + 16 bytes) gets the name given.
 * @retval GPUCORE_OK      *ret_name is the file's name now
 * @retval GPUCORE_E_EXIST every name tried exists (the file stays under @p tmp)
 * @retval GPUCORE_E_IO    renaming failed otherwise (the file stays under @p tmp), or the
 *                         directory could not be synced (the file has its name)
 * @retval GPUCORE_E_INVAL bad arguments
 */
gpucore_status_t gc_ingest_publish(int dirfd, const char *tmp, const char *name, char *ret_name,
                                   size_t ret_size, gpucore_diag_t *reterr_diag);

/*
 * Open @p name of @p dirfd for reading (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
 * O_CLOEXEC): accepted only when it is a regular file with one link; returned blocking, its
 * fstat() in @p ret_st (may be NULL). Messages say what the entry is, without its path.
 * @retval GPUCORE_OK        *ret_fd open (the caller closes it)
 * @retval GPUCORE_E_NOTFOUND no such entry
 * @retval GPUCORE_E_PERM    a symlink, not a regular file, more than one link, or no right to
 *                           read it: refused
 * @retval GPUCORE_E_IO      another failure
 */
gpucore_status_t gc_ingest_open_in(int dirfd, const char *name, int *ret_fd, struct stat *ret_st,
                                   gpucore_diag_t *reterr_diag);

/* Whether @p name of @p dirfd is still the file @p st describes (device and inode; not
   following a symlink). */
int gc_ingest_same_file(int dirfd, const char *name, const struct stat *st);

#endif /* GPUCORE_INGEST_DIR_H */
