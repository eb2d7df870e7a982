/* command_impl.h -- the private half of command.h: what a command's
 * implementation reads its request with, and what its rows are written with.
 *
 * An implementation sees its request through an sd_command_args, the row
 * and the request together, and reads each field by its option name, as
 * the program names it: a value given (checked against the domain passed,
 * with the program's message), or the row's default, or "--x is
 * required".  So a command reads the same whether the program, a binding
 * or a C caller filled its request.
 */
#ifndef SPECDEC_COMMAND_IMPL_H
#define SPECDEC_COMMAND_IMPL_H

#include <stdint.h>

#include "specdec/command.h"

/* A field row's type and offset, with the member's type checked at compile time. */
const sd_command_list *sd_command_is_LIST(const sd_command_list *);
const double *sd_command_is_REAL(const double *);
const char *const *sd_command_is_TEXT(const char *const *);
const int *sd_command_is_CHOICE(const int *);
const int *sd_command_is_FLAG(const int *);
#define SD_FIELD(T, member, kind)                                                                                 \
    .type = SD_COMMAND_##kind,                                                                                    \
    .offset = offsetof(T, member) + 0 * sizeof(sd_command_is_##kind(&((T *)0)->member))

/* The largest library defaults struct a row may read its defaults from (sd_command.library). */
#define SD_COMMAND_LIBRARY_MAX 8192

/* A field's default from the library's defaults struct L. */
#define SD_FIELD_LIB(L, field, t) .lib = SD_COMMAND_LIB_##t, .lib_offset = offsetof(L, field)

/* The row's calls on a typed request: NAME_defaults_ and NAME_table_ for
 * sd_cmd_NAME_defaults and sd_cmd_NAME_table. */
#define SD_COMMAND_CALLS(n)                                                                                     \
    static void n##_defaults_(void *r) { *(sd_cmd_##n##_request *)r = sd_cmd_##n##_defaults(); }        \
    static sd_status n##_table_(const void *r, sd_table **out, sd_error *err)                                  \
    {                                                                                                             \
        return sd_cmd_##n##_table(r, out, err);                                                                \
    }
/* The members of a row that name its request and calls: a request without a data folder, or one
 * with a member `const char *data_dir`. */
#define SD_COMMAND_ROW_WITH(n, dir)                                                                              \
    .name = #n, .size = sizeof(sd_cmd_##n##_request), .defaults = n##_defaults_, .table = n##_table_, .data_dir = dir
#define SD_COMMAND_ROW(n) SD_COMMAND_ROW_WITH(n, SIZE_MAX)
#define SD_COMMAND_ROW_DATA(n) SD_COMMAND_ROW_WITH(n, offsetof(sd_cmd_##n##_request, data_dir))

/* The fields a C caller may have set out of their range before any is read: a choice's index
 * past its names, a flag other than 0 or 1.  SD_EINVAL naming the field; the start of every
 * command's call. */
sd_status sd_command_check(const sd_command *cmd, const void *request, sd_error *err);

/* Builds a table with these column names; SD_ENOMEM on failure. */
sd_status sd_command_table(size_t ncols, const char *const *names, sd_table **out, sd_error *err);
/* Ends a command: frees the n lists and, when st is not SD_OK, the table;
 * stores the table (or NULL) in *out and returns st. */
sd_status sd_command_finish(sd_status st, sd_list *lists, size_t n, sd_table *t, sd_table **out);

/* The one size computation of every grid: the product of counts[0..n-1],
 * overflow-safe, or SD_EINVAL past SD_LIST_MAX rows. */
sd_status sd_command_rows(const size_t *counts, size_t n, size_t *rows, sd_error *err);
/* Rows of the cartesian product of n lists (sd_command_rows of their lengths). */
sd_status sd_command_grid_size(const sd_list *lists, size_t n, size_t *rows, sd_error *err);
/* The idx-th combination (first list slowest) into x[0..n-1]. */
void sd_command_grid_point(const sd_list *lists, size_t n, size_t idx, double *x);

#endif
