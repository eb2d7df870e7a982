/* table.h -- the one result type: named columns, typed cells, rows, notes.
 *
 * Every command builds a table and hands it to format.h, so every output
 * format works for every command.  Cells are whole numbers, reals (finite
 * or infinite, never NaN) or text.  Notes are free lines that the readable
 * formats (text, markdown) print under the table and the machine formats
 * leave out.
 */
#ifndef SPECDEC_TABLE_H
#define SPECDEC_TABLE_H

#include <stddef.h>

#include "specdec/status.h"

typedef enum { SD_CELL_INT, SD_CELL_REAL, SD_CELL_TEXT } sd_cell_type;

typedef struct {
    sd_cell_type type;
    union {
        long long i;
        double r;
        const char *s; /* owned by the table once added */
    } v;
} sd_cell;

typedef struct sd_table sd_table;

static inline sd_cell sd_int(long long i) { sd_cell c = { SD_CELL_INT, { .i = i } }; return c; }
static inline sd_cell sd_real(double r) { sd_cell c = { SD_CELL_REAL, { .r = r } }; return c; }
static inline sd_cell sd_text(const char *s) { sd_cell c = { SD_CELL_TEXT, { .s = s } }; return c; }

/* A new empty table with ncols columns named names[0..ncols-1] (the strings
 * are copied).  The caller owns it and frees it with sd_table_free; NULL if
 * out of memory. */
SD_API sd_table *sd_table_alloc(size_t ncols, const char *const *names);
/* Frees t and every string it holds; t may be NULL. */
SD_API void sd_table_free(sd_table *t);

/* Appends row[0..ncols-1]; text is copied (v.s must not be NULL).  SD_EFAIL
 * for a NaN cell (naming the column: NaN never reaches an output),
 * SD_ENOMEM.  On failure t is unchanged. */
SD_API sd_status sd_table_add(sd_table *t, const sd_cell *row, sd_error *err);

/* Appends a note line (printf-style, truncated to 1023 bytes).  SD_ENOMEM;
 * on failure t is unchanged. */
SD_API sd_status sd_table_note(sd_table *t, sd_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Accessors; they never fail and do not check bounds (col < ncols,
 * row < nrows, i < nnotes).  Returned strings belong to t and live until
 * sd_table_free; a cell pointer lives only until the next sd_table_add
 * (the rows may move), though its text stays valid. */
SD_API size_t sd_table_ncols(const sd_table *t);
SD_API size_t sd_table_nrows(const sd_table *t);
SD_API size_t sd_table_nnotes(const sd_table *t);
SD_API const char *sd_table_name(const sd_table *t, size_t col);
SD_API const sd_cell *sd_table_cell(const sd_table *t, size_t row, size_t col);
SD_API const char *sd_table_note_at(const sd_table *t, size_t i);
/* A whole column in one call (for bindings: no call per cell).  The
 * column's kind: SD_CELL_INT when every cell is a whole number (or there
 * are no rows), SD_CELL_REAL when every cell is a number and one is real,
 * SD_CELL_TEXT when one is text.  sd_table_column_reals writes the cells
 * of a number column as doubles into out[0 .. nrows-1] and returns 1; for
 * a column holding text it writes nothing and returns 0.
 * sd_table_column_ints does the same for a column of whole numbers. */
SD_API sd_cell_type sd_table_column_type(const sd_table *t, size_t col);
SD_API int sd_table_column_reals(const sd_table *t, size_t col, double *out);
SD_API int sd_table_column_ints(const sd_table *t, size_t col, long long *out);
/* Column index by name, or (size_t)-1 when there is none. */
SD_API size_t sd_table_find(const sd_table *t, const char *name);

#endif
