"""Markdown benchmark: Tintero's renderer against bare markdown-it + nh3 on a 2 KB post.

Run from the repository root::

    .venv/bin/python -m bench.markdown_bench          # ~10 s
    .venv/bin/python -m bench.markdown_bench --quick  # ~2 s smoke run

Both sides render the same post: ``app`` is ``campaigns.markdown.render_markdown`` (control characters
filtered, spoiler rule, nesting check, sanitizer); ``floor`` is a bare commonmark markdown-it with the
same extensions and the same nh3 call. Rounds alternate app and floor batches back to back, so a load
spike on a shared machine hits both; the ratio is the median of per-round ratios. Target: <= 1.05.
Benchmarks report, they do not gate: the exit status is always 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import django

RATIO_TARGET = 1.05

# About 2 KB of what posts look like: paragraphs with emphasis and a link, a quote, a list, a spoiler.
POST = """**Ana** empuja la puerta del almacén con el hombro. Dentro huele a *aceite de máquina* y a papel
mojado; las cajas llevan el sello de la [Compañía Trasatlántica](https://example.org/cia) y alguien ha
arrancado las etiquetas con prisa.

> —No deberíamos estar aquí —susurra Bruno, sin soltar la linterna.

Ana no contesta. Cuenta las cajas, recorre los pasillos y se detiene junto a la última fila, donde el
polvo del suelo dibuja un rastro reciente. Se agacha, pasa el dedo por el borde de una tapa y nota que los
clavos son nuevos.

- revisa las **cajas** de la fila norte
- busca el libro de registro del capataz
- deja a Bruno vigilando la puerta de atrás

Intento abrir la caja sin hacer ruido: *Robo* contra la dificultad que diga la directora. Si sale mal,
que al menos no se entere el vigilante del muelle, que ya nos miró raro al entrar. Y si sale bien, quiero
ver qué hay debajo de la paja antes de que Bruno se ponga nervioso otra vez.

::: spoiler Lo que Ana sabe y Bruno no
La carta de su padre mencionaba este almacén. No se lo ha contado a nadie: si la Compañía está metida en
esto, el dinero de la familia también lo está, y eso cambia todo lo que creían saber del encargo.
:::

Al fondo, una bombilla parpadea. Ana sostiene la palanca con las dos manos, respira hondo y mira una
última vez hacia la puerta, donde la sombra de Bruno se recorta contra la luz gris del amanecer. Luego
hace palanca, despacio, muy despacio, escuchando cada crujido de la madera como si fuera un disparo.

~~No hay nadie~~ Hay alguien más en el almacén.

| tirada | resultado |
|---|---|
| Robo | +2 |
| Alerta | -1 |

Bruno da un paso atrás. La linterna tiembla un poco y el haz recorre el techo, las vigas, los ganchos
vacíos, hasta detenerse en una figura que no se mueve. Nadie respira. Fuera, en el muelle, una sirena
anuncia el primer barco de la mañana, y el vigilante silba una canción que Ana conoce de algo.
"""


def _floor() -> Callable[[str], str]:
    import nh3
    from markdown_it import MarkdownIt

    from campaigns import markdown

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )

    def render(source: str) -> str:
        return nh3.clean(
            md.render(source),
            tags=markdown._ALLOWED_TAGS,
            attributes=markdown._ALLOWED_ATTRIBUTES,
            url_schemes=markdown._URL_SCHEMES,
            link_rel="nofollow noopener noreferrer",
            strip_comments=True,
            filter_style_properties={"text-align"},
        )

    return render


def _batch(render: Callable[[str], str], calls: int) -> float:
    """Seconds per call over one batch."""
    started = time.perf_counter()
    for _ in range(calls):
        render(POST)
    return (time.perf_counter() - started) / calls


def run(rounds: int, calls: int) -> None:
    from campaigns.markdown import render_markdown

    floor = _floor()
    for render in (render_markdown, floor):  # warm caches (parser construction, regexes)
        _batch(render, 20)
    app_times, floor_times, ratios = [], [], []
    for index in range(rounds):
        # Alternate which side goes first so neither always gets the warmer cache.
        pair = (render_markdown, floor) if index % 2 == 0 else (floor, render_markdown)
        first, second = _batch(pair[0], calls), _batch(pair[1], calls)
        app, bare = (first, second) if index % 2 == 0 else (second, first)
        app_times.append(app)
        floor_times.append(bare)
        ratios.append(app / bare)
    ratio = statistics.median(ratios)
    print(f"Markdown + sanitize of a {len(POST.encode())}-byte post, {rounds} rounds of {calls} calls")
    print(f"  app   (render_markdown)    median {statistics.median(app_times) * 1e6:8.1f} µs")
    print(f"  floor (markdown-it + nh3)  median {statistics.median(floor_times) * 1e6:8.1f} µs")
    verdict = "ok" if ratio <= RATIO_TARGET else "over target"
    print(f"  ratio app/floor (median of rounds) {ratio:.3f}x  (target <= {RATIO_TARGET}x: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tintero.settings")
    django.setup()
    if args.quick:
        run(rounds=5, calls=100)
    else:
        run(rounds=21, calls=300)


if __name__ == "__main__":
    main()
