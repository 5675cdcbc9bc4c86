/* test_mdhtml.c — the review page's reading of numbers (svgchart's tg_format_cell, the
 * numeric columns) and of a tool's Markdown summary (lifecycle/mdhtml). */
#include <stdlib.h>

#include "base/buf.h"
#include "lifecycle/mdhtml.h"
#include "lifecycle/svgchart.h"
#include "testlib.h"

static void check_format(const char *in, const char *want)
{
    char out[64];
    tg_format_cell(in, out, sizeof out);
    CHECK(strcmp(out, want) == 0, "%s shown as '%s', expected '%s'", in, out, want);
}

static void test_numbers(void)
{
    check_format("2.734736842105263", "2.735");
    check_format("78.69999999999999", "78.7");
    check_format("214.0", "214");
    check_format("12345.678", "12345.68");
    check_format("1234567.891", "1234568");
    check_format("0.012345", "0.01235");
    check_format("-0.0001", "-0.0001");
    check_format("-0.0000001", "0");
    check_format("1e-3", "0.001");
    /* integers and text as they are: an id or a year is not a quantity to round */
    check_format("007", "007");
    check_format("2023", "2023");
    check_format("35.66%", "35.66%");
    check_format("Fri", "Fri");
    check_format("", "");
    check_format("nan", "nan");
    CHECK(tg_cell_numeric("35.66%"), "a percentage is numeric");
    CHECK(tg_cell_numeric("-3"), "an integer is numeric");
    CHECK(!tg_cell_numeric(" 3"), "a padded number is text");
    CHECK(!tg_cell_numeric("inf"), "inf is text");
    CHECK(!tg_cell_numeric("3 apples"), "a number followed by text is text");
}

static char *html(const char *md, const tg_mdhtml_opts *o)
{
    tg_buf b = TG_BUF_INIT;
    tg_mdhtml(&b, md, o);
    return tg_buf_steal(&b);
}

static void test_markdown(void)
{
    const char *md = "## Mean of tip per day\n\n![Mean of tip per day](bar_chart.png)\n\n"
                     "| day | mean_tip |\n| --- | ---: |\n| Fri | 2.734736842105263 |\n"
                     "| Sat | 3 |\n\n244 of **244** rows of `data/tips.csv` used,\nsee "
                     "[the docs](https://example.org).\n\n- one <b>\n- two\n\n1. first\n"
                     "---\n### Notes\n";
    tg_strv images = TG_STRV_INIT;
    tg_mdhtml_opts o = {.images = &images, .skip_heading = "mean of tip per day"};
    char *h = html(md, &o);
    CHECK(!strstr(h, "Mean of tip per day"), "the page's own title is left out: %s", h);
    CHECK(images.n == 1 && strcmp(images.v[0], "bar_chart.png") == 0, "the image is reported");
    CHECK(!strstr(h, "!["), "no image source: %s", h);
    CHECK_CONTAINS(h, "<th>day</th><th class=\"num\">mean_tip</th>");
    CHECK_CONTAINS(h, "<td class=\"num\" title=\"2.734736842105263\">2.735</td>");
    CHECK_CONTAINS(h, "<td class=\"num\">3</td>");
    CHECK(!strstr(h, "---"), "no separator row or rule: %s", h);
    CHECK_CONTAINS(h, "<p>244 of <b>244</b> rows of <code>data/tips.csv</code> used, see the "
                      "docs.</p>");
    CHECK_CONTAINS(h, "<ul>\n<li>one &lt;b&gt;</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n"
                      "</ol>\n<h4>Notes</h4>");
    CHECK(!strstr(h, "example.org"), "a link shows its text only: %s", h);
    free(h);
    tg_strv_free(&images);

    tg_mdhtml_opts skip = {.skip_tables = true};
    h = html("| a |\n| - |\n| 1 |\ntext\n", &skip);
    CHECK(!strstr(h, "<table"), "tables left out when asked: %s", h);
    CHECK_CONTAINS(h, "<p>text</p>");
    free(h);
    h = html(NULL, NULL);
    CHECK(strcmp(h, "") == 0, "no Markdown, nothing");
    free(h);
    h = html("<script>alert(1)</script>\r\n", NULL);
    CHECK_CONTAINS(h, "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
    free(h);
}

int main(void)
{
    test_numbers();
    test_markdown();
    return tl_finish("mdhtml");
}
