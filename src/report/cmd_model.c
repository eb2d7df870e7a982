/* cmd_model.c -- the model options of simulate and policies (synthetic
 * families, distribution files, the n-gram pair, .npy pairs), the
 * verification rule, and the memory limit of a run. */
#include "cmd_model_impl.h"

#include "cmd_sampling_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const sd_domain VOCAB = { "--vocab", 1, SD_VOCAB_MAX, 1 };
static const sd_domain MAX_MEMORY = { "--max-memory", 1e-3, 1e6, 0 };
static const sd_domain CONTEXTS = { "--contexts", 1, 65536, 1 };
static const sd_domain HISTORY = { "--history", 0, SD_HISTORY_MAX, 1 };
static const sd_domain ZIPF_S = { "--zipf-s", 1e-3, 100, 0 };
static const sd_domain KAPPA = { "--kappa", 1e-3, 1e6, 0 };
/* The logits family's temperature; the row takes simulate's sampling temperatures too (0: greedy). */
static const sd_domain TEMPERATURE = { "--temperature", 1e-3, SD_TEMPERATURE_MAX, 0 };
static const sd_domain NOISE = { "--noise", 0, 100, 0 };
static const sd_domain CONCENTRATION = { "--concentration", 1e-3, 1e6, 0 };
static const sd_domain ALPHA_EASY = { "--alpha-easy", 0, 1, 0 };
static const sd_domain ALPHA_HARD = { "--alpha-hard", 0, 1, 0 };
static const sd_domain STAY = { "--stay", 0, 1, 0 };

sd_status sd_cmd_model_verifier(const sd_command_args *a, const sd_verifier **v, sd_error *err)
{
    char buf[64];
    const char *name = sd_command_args_text(a, "--verify", buf, sizeof buf);
    *v = sd_verify_find(name);
    if (*v == NULL)
        return sd_status_fail(err, SD_EINVAL, "--verify: unknown rule '%s'; expected one of %s", name,
                              sd_verify_names());
    return SD_OK;
}

sd_status sd_cmd_model_load_pair(const char *p_path, const char *q_path, sd_dist *p, sd_dist *q, sd_model **m,
                                 sd_error *err)
{
    sd_status st;
    if ((st = sd_dist_load(p_path, p, err)) != SD_OK || (st = sd_dist_load(q_path, q, err)) != SD_OK ||
        (st = sd_dist_compatible(p, q, p_path, q_path, err)) != SD_OK)
        return st;
    return sd_model_pair(p->p, q->p, p->n, m, err);
}

/* The options of the n-gram pair and of .npy pairs: each only with its
 * model, and neither with distribution files. */
static sd_status check_text_options(const sd_command_args *a, const sd_cmd_model *ms, sd_error *err)
{
    static const char *const NGRAM_ONLY[] = { "--corpus", "--order", "--draft-order", "--export-npy", NULL };
    static const char *const NPY_ONLY[] = { "--input", NULL };
    static const char *const SAMPLING[] = { "--top-k", "--top-p", "--min-p", "--draft-temperature", "--draft-top-k",
                                            "--draft-top-p", "--draft-min-p", NULL };
    if (ms->ngram && strcmp(a->cmd->name, "simulate") != 0)
        return sd_status_fail(err, SD_EINVAL, "--family: the n-gram pair runs in simulate (ngram is not a family of %s)",
                              a->cmd->name);
    if (ms->ngram && ms->npy)
        return sd_status_fail(err, SD_EINVAL, "--p-npy: give --family ngram or a .npy pair, not both");
    if ((ms->ngram || ms->npy) && (sd_command_args_given(a, "--p-file") || sd_command_args_given(a, "--q-file")))
        return sd_status_fail(err, SD_EINVAL, "--p-file: give distribution files, --family ngram or a .npy pair, one "
                              "of them");
    for (int i = 0; NGRAM_ONLY[i] != NULL; i++)
        if (!ms->ngram && sd_command_args_given(a, NGRAM_ONLY[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: needs --family ngram", NGRAM_ONLY[i]);
    for (int i = 0; NPY_ONLY[i] != NULL; i++)
        if (!ms->npy && sd_command_args_given(a, NPY_ONLY[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: needs --p-npy and --q-npy", NPY_ONLY[i]);
    for (int i = 0; SAMPLING[i] != NULL; i++)
        if (!ms->npy && !ms->ngram && sd_command_args_given(a, SAMPLING[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: needs --p-npy and --q-npy, or --family ngram", SAMPLING[i]);
    if (ms->ngram && !sd_command_args_given(a, "--corpus"))
        return sd_status_fail(err, SD_EINVAL, "--corpus is required with --family ngram (e.g. "
                              "/usr/share/common-licenses/GPL-3)");
    int alpha = sd_command_args_given(a, "--alpha"), noise = sd_command_args_given(a, "--noise");
    if ((ms->ngram || ms->npy) && (alpha || noise || sd_command_args_given(a, "--regime")))
        return sd_status_fail(err, SD_EINVAL, "--%s: the n-gram and .npy models have their own acceptance",
                              alpha ? "alpha" : noise ? "noise" : "regime");
    return SD_OK;
}

/* The numbers of the synthetic families into c (the defaults where absent). */
static sd_status synth_numbers(const sd_command_args *a, const sd_cmd_model *ms, sd_synth_config *c, sd_error *err)
{
    double vocab, contexts = 0, history, seed;
    sd_status st;
    if ((st = sd_command_args_number(a, &VOCAB, &vocab, err)) != SD_OK ||
        (st = sd_command_args_number(a, &HISTORY, &history, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_SEED, &seed, err)) != SD_OK ||
        (st = sd_command_args_number(a, &ZIPF_S, &c->zipf_s, err)) != SD_OK ||
        (st = sd_command_args_number(a, &KAPPA, &c->kappa, err)) != SD_OK ||
        (!ms->npy && !ms->ngram && (st = sd_command_args_number(a, &TEMPERATURE, &c->temperature, err)) != SD_OK) ||
        (st = sd_command_args_number(a, &CONCENTRATION, &c->concentration, err)) != SD_OK ||
        (st = sd_command_args_number(a, &ALPHA_EASY, &c->alpha_easy, err)) != SD_OK ||
        (st = sd_command_args_number(a, &ALPHA_HARD, &c->alpha_hard, err)) != SD_OK ||
        (st = sd_command_args_number(a, &STAY, &c->stay, err)) != SD_OK ||
        (sd_command_args_given(a, "--contexts") &&
         (st = sd_command_args_number(a, &CONTEXTS, &contexts, err)) != SD_OK))
        return st;
    c->vocab = (size_t)vocab;
    c->contexts = (size_t)contexts;
    c->history = (size_t)history;
    c->seed = (uint64_t)seed;
    return SD_OK;
}

sd_status sd_cmd_model_read(const sd_command_args *a, sd_cmd_model *ms, sd_error *err)
{
    sd_synth_config *c = &ms->synth;
    int family = SD_FAMILY_ZIPF, regime;
    sd_status st;
    memset(ms, 0, sizeof *ms);
    *c = sd_synth_defaults();
    const char *fam = sd_command_args_value(a, "--family");
    ms->ngram = fam != NULL && strcmp(fam, "ngram") == 0;
    ms->npy = sd_command_args_given(a, "--p-npy") || sd_command_args_given(a, "--q-npy");
    if ((st = check_text_options(a, ms, err)) != SD_OK)
        return st;
    /* the n-gram and .npy models are not synthetic families: the synthetic defaults stay for the seed */
    if ((!ms->ngram && !ms->npy && (st = sd_command_args_choice(a, "--family", NULL, &family, err)) != SD_OK) ||
        (st = sd_command_args_choice(a, "--regime", NULL, &regime, err)) != SD_OK ||
        (st = synth_numbers(a, ms, c, err)) != SD_OK)
        return st;
    c->family = (sd_family)family;
    c->regime = (sd_regime)regime;
    c->calibrated = !sd_command_args_given(a, "--noise");
    if (!c->calibrated) {
        if (sd_command_args_given(a, "--alpha"))
            return sd_status_fail(err, SD_EINVAL, "--noise and --alpha exclude each other: a noisy draft's alpha is "
                                  "measured");
        if ((st = sd_command_args_number(a, &NOISE, &c->noise, err)) != SD_OK)
            return st;
    }
    if (regime == SD_REGIME_MARKOV && sd_command_args_given(a, "--alpha"))
        return sd_status_fail(err, SD_EINVAL, "--alpha: the markov regime takes --alpha-easy, --alpha-hard and --stay");
    ms->from_files = sd_command_args_given(a, "--p-file") || sd_command_args_given(a, "--q-file");
    if (ms->from_files && !(sd_command_args_given(a, "--p-file") && sd_command_args_given(a, "--q-file")))
        return sd_status_fail(err, SD_EINVAL, "--p-file and --q-file go together");
    return SD_OK;
}

/* --max-memory in GiB, or half the physical memory. */
static sd_status memory_limit(const sd_command_args *a, double *limit_gib, sd_error *err)
{
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    *limit_gib = phys > 0 ? phys / 2 / 1073741824.0 : 4.0;
    return sd_command_args_given(a, "--max-memory") ? sd_command_args_number(a, &MAX_MEMORY, limit_gib, err) : SD_OK;
}

sd_status sd_cmd_model_check_memory(const sd_command_args *a, const sd_cmd_model *ms, const sd_engine_config *ec,
                                    size_t file_vocab, sd_error *err)
{
    double limit_gib;
    sd_status st = memory_limit(a, &limit_gib, err);
    if (st != SD_OK)
        return st;
    double limit = limit_gib * 1073741824.0;
    size_t vocab = ms->from_files ? file_vocab : ms->synth.vocab;
    size_t contexts = ms->from_files ? 1 : ms->synth.contexts ? ms->synth.contexts : sd_synth_default_contexts(vocab);
    double bank = ms->from_files ? 0.0 : (double)sd_synth_bytes(&ms->synth);
    double engine = (double)sd_engine_bytes(ec, vocab, contexts);
    if (bank + engine <= limit)
        return SD_OK;
    return sd_status_fail(err, SD_EINVAL, "--max-memory: this run needs about %.3g GiB (bank %.3g, engine counters %.3g "
                          "for %u threads) but the limit is %.3g GiB; lower --vocab, --contexts or --threads, or raise "
                          "--max-memory", (bank + engine) / 1073741824.0, bank / 1073741824.0, engine / 1073741824.0,
                          ec->threads, limit_gib);
}

sd_status sd_cmd_model_check_built(const sd_command_args *a, const sd_engine_config *ec, sd_error *err)
{
    double limit_gib;
    sd_status st = memory_limit(a, &limit_gib, err);
    if (st != SD_OK)
        return st;
    double need = (double)sd_model_bytes(ec->model) +
                  (double)sd_engine_bytes(ec, sd_model_vocab(ec->model), sd_model_contexts(ec->model));
    if (need <= limit_gib * 1073741824.0)
        return SD_OK;
    return sd_status_fail(err, SD_EINVAL, "--max-memory: this run needs about %.3g GiB but the limit is %.3g GiB; lower "
                          "--threads or --order, or raise --max-memory", need / 1073741824.0, limit_gib);
}

#define M sd_cmd_model_options
const sd_command_field SD_CMD_MODEL_FIELDS[] = {
    { .name = "--family", SD_FIELD(M, family, TEXT), .metavar = "NAME", .help = "target family: {names} (default "
      "{default}); simulate also takes ngram", SD_LIB(synth.family, ENUM), .names = sd_synth_family_names },
    { .name = "--vocab", SD_FIELD(M, vocab, REAL), .metavar = "V", .help = "vocabulary size, in {range} (default "
      "{default})", .domain = &VOCAB, SD_LIB(synth.vocab, SIZE) },
    { .name = "--alpha", SD_FIELD(M, alpha, LIST), .metavar = "LIST", .help = "calibrated draft: acceptance per "
      "context, in {range} (default {default}; policies: one value)", .domain = &SD_CMD_ALPHA,
      SD_LIB(synth.alpha, DOUBLE) },
    { .name = "--noise", SD_FIELD(M, noise, REAL), .metavar = "SIGMA", .help = "uncalibrated draft: q = softmax(log p "
      "+ SIGMA N(0,1)); alpha is measured", .domain = &NOISE },
    { .name = "--regime", SD_FIELD(M, regime, CHOICE), .metavar = "NAME", .help = "per-context alpha: {names} "
      "(default {default})", SD_LIB(synth.regime, ENUM), .names = sd_synth_regime_names },
    { .name = "--concentration", SD_FIELD(M, concentration, REAL), .metavar = "NU", .help = "beta regime: alpha_c ~ "
      "Beta(alpha NU, (1 - alpha) NU) (default {default})", .domain = &CONCENTRATION,
      SD_LIB(synth.concentration, DOUBLE) },
    { .name = "--alpha-easy", SD_FIELD(M, alpha_easy, REAL), .metavar = "A", .help = "markov regime: acceptance in "
      "the easy state (default {default})", .domain = &ALPHA_EASY, SD_LIB(synth.alpha_easy, DOUBLE) },
    { .name = "--alpha-hard", SD_FIELD(M, alpha_hard, REAL), .metavar = "A", .help = "markov regime: acceptance in "
      "the hard state (default {default})", .domain = &ALPHA_HARD, SD_LIB(synth.alpha_hard, DOUBLE) },
    { .name = "--stay", SD_FIELD(M, stay, REAL), .metavar = "P", .help = "markov regime: probability of keeping the "
      "state per token (default {default})", .domain = &STAY, SD_LIB(synth.stay, DOUBLE) },
    { .name = "--zipf-s", SD_FIELD(M, zipf_s, REAL), .metavar = "S", .help = "zipf exponent (default {default})",
      .domain = &ZIPF_S, SD_LIB(synth.zipf_s, DOUBLE) },
    { .name = "--kappa", SD_FIELD(M, kappa, REAL), .metavar = "K", .help = "dirichlet concentration (default "
      "{default})", .domain = &KAPPA, SD_LIB(synth.kappa, DOUBLE) },
    { .name = "--temperature", SD_FIELD(M, temperature, LIST), .metavar = "T", .help = "logits family: its "
      "temperature (default {default}); simulate on .npy pairs and ngram: the sampling LIST, 0 greedy",
      .domain = &SD_CMD_SAMPLING_DOMAINS[0], SD_LIB(synth.temperature, DOUBLE) },
    { .name = "--contexts", SD_FIELD(M, contexts, REAL), .metavar = "K", .help = "contexts in the bank (default: "
      "about 2^21 / V, 2 to 64)", .domain = &CONTEXTS },
    { .name = "--history", SD_FIELD(M, history, REAL), .metavar = "K", .help = "prefix tokens that select a context, "
      "in {range} (default {default})", .domain = &HISTORY, SD_LIB(synth.history, SIZE) },
    { .name = "--p-file", SD_FIELD(M, p_file, TEXT), .metavar = "P", .help = "context-free target from a "
      "distribution file (with --q-file)" },
    { .name = "--q-file", SD_FIELD(M, q_file, TEXT), .metavar = "Q", .help = "context-free draft from a distribution "
      "file (with --p-file)" },
    { .name = "--verify", SD_FIELD(M, verify, TEXT), .metavar = "NAME", .help = "verification rule: {names} (default "
      "{default})", .dflt = "adjusted", .names = sd_verify_name_list },
    { .name = "--seed", SD_FIELD(M, seed, REAL), .metavar = "S", .help = "random seed (default {default})",
      .domain = &SD_CMD_SEED, SD_LIB(synth.seed, U64) },
    { .name = "--max-memory", SD_FIELD(M, max_memory, REAL), .metavar = "GIB", .help = "refuse runs whose bank and "
      "counters need more (default: half the physical memory)", .domain = &MAX_MEMORY },
    { .name = NULL },
};
#undef M

sd_cmd_model_options sd_cmd_model_defaults(void)
{
    return (sd_cmd_model_options){ .vocab = NAN, .noise = NAN, .regime = -1, .concentration = NAN,
                                   .alpha_easy = NAN, .alpha_hard = NAN, .stay = NAN, .zipf_s = NAN, .kappa = NAN,
                                   .contexts = NAN, .history = NAN, .seed = NAN, .max_memory = NAN };
}
