/* command.h -- a command as a typed request and a table of named fields.
 *
 * Every command of the specdec program is a library call: a request
 * struct (sd_cmd_NAME_request, cmd_NAME.h), sd_cmd_NAME_defaults() and
 * sd_cmd_NAME_table(&request, &table, &err).  Each request is described
 * by a row of this module, sd_command: its fields, each a row naming the
 * option ("--alpha"), its type, where it lies in the struct, its domain,
 * its default and one line of help.  The program parses its command line
 * into the request through these rows and prints the table; a binding
 * (the Python package) makes its typed functions, signatures and
 * docstrings from the same rows; so the program, the bindings and C
 * callers cannot drift apart.  The rows are listed once, in commands.h.
 *
 * A field is "given" or not:
 *   SD_COMMAND_FLAG    int, 0 (not given) or 1;
 *   SD_COMMAND_REAL    double, NAN when not given (whole numbers too, up to 2^53);
 *   SD_COMMAND_LIST    sd_command_list, n = 0 when not given (the caller owns v);
 *   SD_COMMAND_TEXT    const char *, NULL when not given (a path or a name; the caller owns it);
 *   SD_COMMAND_CHOICE  int, an index of the row's names(), -1 when not given.
 * sd_cmd_NAME_defaults() gives nothing; a field not given takes the
 * default its row states (sd_command_default_text), or is required, or is
 * not used, as the command's comment says.  A given value is checked
 * against the row's domain by the call, with the program's message
 * ("--alpha: 1.5 is outside [0, 1]"): messages name a field as the program
 * spells it, which a binding may respell.
 *
 * Requests hold no state of their own; a command call is reentrant, so
 * several threads may run commands at once (each with its own request).
 */
#ifndef SPECDEC_COMMAND_H
#define SPECDEC_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/parse.h"
#include "specdec/status.h"
#include "specdec/table.h"

typedef enum { SD_COMMAND_FLAG, SD_COMMAND_REAL, SD_COMMAND_LIST, SD_COMMAND_TEXT, SD_COMMAND_CHOICE } sd_command_type;

/* A list field's value: v[0 .. n-1], owned by the caller. */
typedef struct {
    const double *v;
    size_t n;
} sd_command_list;

/* Where a field's default comes from when the row gives no text: a number
 * of one of the library's defaults structs (the type of that number). */
typedef enum { SD_COMMAND_LIB_NONE, SD_COMMAND_LIB_SIZE, SD_COMMAND_LIB_DOUBLE, SD_COMMAND_LIB_U64,
               SD_COMMAND_LIB_UINT, SD_COMMAND_LIB_ENUM } sd_command_lib;

/* One field of a request.  Rows end with a row whose name is NULL. */
typedef struct {
    const char *name;        /* "--alpha"; a positional argument: its metavar ("FILE") */
    sd_command_type type;
    size_t offset;           /* in its group's struct */
    int position;            /* 1, 2, ...: the program's positional argument; 0: an option */
    const char *metavar;     /* "LIST", "FILE"; NULL for a flag */
    const char *help;        /* one line; {default}, {range}, {max} and {names} (a CHOICE's) filled in by
                              * sd_command_help_text */
    const sd_domain *domain; /* REAL and LIST: the numbers taken; NULL otherwise */
    const char *dflt;        /* the default as a user types it; NULL: none, or lib */
    sd_command_lib lib;      /* the default from the library's defaults, when dflt is NULL */
    size_t lib_offset;       /* ... at this offset of the command's library defaults (sd_command.library) */
    const char *const *(*names)(void); /* CHOICE: the names, indexed as the value */
} sd_command_field;

enum { SD_COMMAND_MAX_GROUPS = 4 };

/* One command: its request's layout and its calls. */
typedef struct sd_command {
    const char *name;    /* "roofline" */
    const char *summary; /* one line */
    const char *usage;   /* its usage line after the program's name: "roofline --target NAME ..." */
    size_t size;         /* sizeof its request */
    const sd_command_field *groups[SD_COMMAND_MAX_GROUPS]; /* field groups, NULL after the last */
    size_t base[SD_COMMAND_MAX_GROUPS];                    /* the offset of each group's struct in the request */
    void (*defaults)(void *request);                       /* nothing given (and no hooks) */
    sd_status (*table)(const void *request, sd_table **out, sd_error *err);
    /* A command whose result may be another program's syntax: when the field text_option is
     * given, text() makes the result instead of table() (NULL: never). */
    const char *text_option;
    sd_status (*text)(const void *request, char **out, sd_error *err);
    /* The library's defaults the fields' lib defaults are read from, into buf (library_size bytes). */
    void (*library)(void *buf);
    size_t library_size;
    size_t data_dir; /* the offset of the request's `const char *data_dir` (the folder of data files); SIZE_MAX:
                      * none */
} sd_command;

/* The i-th field of cmd, counting its groups in order; NULL past the last.
 * *base (when not NULL) gets the offset of its group's struct. */
SD_API const sd_command_field *sd_command_field_at(const sd_command *cmd, size_t i, size_t *base);
/* The field called name ("--alpha", or a positional's metavar) of cmd, or NULL. */
SD_API const sd_command_field *sd_command_field_find(const sd_command *cmd, const char *name, size_t *base);

/* 1 when the field is given in request (see above). */
SD_API int sd_command_given(const sd_command *cmd, const sd_command_field *f, size_t base, const void *request);

/* The text of field f's default as a user types it ("1:25", "4096",
 * "adjusted"), into buf (size bytes), or NULL when it has none.  Never fails. */
SD_API const char *sd_command_default_text(const sd_command *cmd, const sd_command_field *f, char *buf, size_t size);

/* f's help line with its placeholders filled in, into buf.  Returns buf. */
SD_API const char *sd_command_help_text(const sd_command *cmd, const sd_command_field *f, char *buf, size_t size);

/* x as a user types it: whole numbers below 10^7 in full, powers of ten
 * from 10^7 as 1eN, others in at most 15 digits with a short exponent
 * (2e-5), inf.  Returns buf. */
SD_API const char *sd_command_number_text(double x, char *buf, size_t size);

/* ---- reading a request: what a command's implementation reads its request with ----------- */

/* A request and its row, read field by field by its option name, as the
 * program names it ("--alpha"): a value given (checked against the domain
 * passed, with the program's message), or the row's default, or "--x is
 * required".  So a command reads the same whether the program, a binding or
 * a C caller filled its request.  The library's commands read their
 * requests with these; a program may describe commands of its own the same
 * way. */
typedef struct {
    const sd_command *cmd;
    const void *req;
} sd_command_args;

/* 1 when the field called name is given. */
SD_API int sd_command_args_given(const sd_command_args *a, const char *name);
/* A TEXT field's value, a CHOICE's name, or NULL when it is not given. */
SD_API const char *sd_command_args_value(const sd_command_args *a, const char *name);
/* The value (a TEXT's, a CHOICE's name) or else the row's default text, into buf for a
 * default that needs it; NULL when it has neither. */
SD_API const char *sd_command_args_text(const sd_command_args *a, const char *name, char *buf, size_t size);
/* A LIST field dom->name: its values (each checked in dom), or the row's
 * default parsed in dom, or "--x is required; see 'specdec CMD --help'".  A
 * copy the caller frees with sd_parse_list_free. */
SD_API sd_status sd_command_args_list(const sd_command_args *a, const sd_domain *dom, sd_list *out, sd_error *err);
/* A REAL field dom->name, by the same rules (a LIST field of one value too). */
SD_API sd_status sd_command_args_number(const sd_command_args *a, const sd_domain *dom, double *out, sd_error *err);
/* A CHOICE field: the index of its value, or of its default; "is required" when
 * it has neither.  A TEXT field read as a choice among names (NULL: the row's):
 * an unknown name fails listing the valid ones. */
SD_API sd_status sd_command_args_choice(const sd_command_args *a, const char *name, const char *const *names, int *out,
                                 sd_error *err);
/* The data folder the request names, or NULL. */
SD_API const char *sd_command_args_data_dir(const sd_command_args *a);

/* When err starts with a library parameter's name ("alpha: ...") that is one
 * of cmd's options, writes the option instead ("--alpha: ..."), as the
 * program's messages read. */
SD_API void sd_command_name_flag(const sd_command *cmd, sd_error *err);
/* Ends a command's call: st, with err's parameter named as an option (above) on failure. */
SD_API sd_status sd_command_end(const sd_command *cmd, sd_status st, sd_error *err);

/* Runs cmd on request: *text when cmd has a text result and its
 * text_option is given (free it with sd_command_free_text; *out NULL),
 * else *out (free it with sd_table_free; *text NULL).  The command's
 * statuses; on failure both NULL, but for SD_ECHECK (validate's failed
 * check), which comes with the whole table in *out. */
SD_API sd_status sd_command_run(const sd_command *cmd, const void *request, sd_table **out, char **text,
                                sd_error *err);

/* Frees a text sd_command_run returned; NULL is allowed. */
SD_API void sd_command_free_text(char *text);

#endif
