#!/usr/bin/env bash
# Makes the resource-catalog test fixtures in test/fixtures/resources/ with real tools from Debian:
#   apt-get install -y ghostscript qpdf pandoc libimage-exiftool-perl webp zip p7zip-full
# The outputs are small and committed; CI uses the committed files and never runs this script.
set -euo pipefail
cd "$(dirname "$0")/../test/fixtures/resources"
rm -rf ./* && work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

# --- PDF with document info, /Lang and text (Ghostscript pdfwrite + pdfmark), linearized by qpdf
cat > "$work/water.ps" <<'PS'
[ /Title (Storing Drinking Water) /Author (Jane Doe) /Subject (How to store water safely at home)
  /Keywords (water, storage; hygiene) /CreationDate (D:20230415093000Z) /DOCINFO pdfmark
[ {Catalog} << /Lang (en) >> /PUT pdfmark
/Helvetica findfont 14 scalefont setfont
72 720 moveto (Keep at least three litres of water per person per day.) show
72 700 moveto (Store it in clean, food grade containers away from sunlight.) show
showpage
72 720 moveto (Replace the stored water every six months.) show
showpage
PS
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$work/water.pdf" "$work/water.ps"
qpdf --linearize "$work/water.pdf" water-guide.pdf

# --- PDF whose only metadata is an XMP title (exiftool); its language must come from the text
cat > "$work/vorrat.ps" <<'PS'
/Helvetica findfont 14 scalefont setfont
72 720 moveto (Ein Notvorrat hilft der ganzen Familie, wenn der Strom einmal ausfaellt.) show
72 700 moveto (Wir lagern Wasser, Lebensmittel und Kerzen im Keller und pruefen sie jedes Jahr.) show
72 680 moveto (Die Liste wird regelmaessig von allen Mitgliedern des Haushalts gelesen.) show
showpage
PS
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile=notvorrat.pdf "$work/vorrat.ps"
exiftool -q -overwrite_original -XMP-dc:Title='Notvorrat Checkliste' notvorrat.pdf

# --- PDF as Ghostscript writes it with no metadata given: its XMP dc:title is "Untitled"
cat > "$work/radio.ps" <<'PS'
/Helvetica findfont 14 scalefont setfont
72 720 moveto (Keep a battery or crank radio and spare batteries with your supplies.) show
showpage
PS
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile=emergency_radio-list.pdf "$work/radio.ps"

# --- PDF whose metadata exiftool wrote: -Subject lands in both the info dictionary and XMP dc:subject
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile=candle-safety.pdf "$work/radio.ps"
exiftool -q -overwrite_original -Title='Candle Safety' -Author='Fire Brigade' \
  -Subject='Using candles safely during a blackout' -Keywords='lighting, fire' candle-safety.pdf

# --- EPUB 3 by pandoc with Dublin Core metadata, plus an edition added to the OPF
cat > "$work/book.md" <<'MD'
---
title: Pantry Recipes
creator:
  - role: author
    text: Max Miller
lang: en-GB
date: 2021-03-02
description: Simple recipes from long-life food.
subject:
  - recipes
  - food
---

# Lentil soup

Soak the lentils overnight, then cook them slowly with onions and carrots.
MD
pandoc "$work/book.md" -o "$work/book.epub" -t epub3
mkdir "$work/book" && (cd "$work/book" && unzip -q "$work/book.epub")
sed -i 's#</metadata>#<meta property="schema:bookEdition">2nd edition</meta></metadata>#' \
  "$work/book/EPUB/content.opf"
(cd "$work/book" && zip -qX0 "$OLDPWD/pantry-recipes.epub" mimetype && zip -qXr9 "$OLDPWD/pantry-recipes.epub" . -x mimetype)

# --- EPUB 2 by pandoc, German
printf -- '---\ntitle: Erste Hilfe\nauthor: Eva Schmidt\nlang: de\n---\n\nDruckverband anlegen.\n' > "$work/eh.md"
pandoc "$work/eh.md" -o erste-hilfe.epub -t epub2

# --- Images: JPEG with EXIF + IPTC, PNG with XMP, WebP with EXIF, GIF with XMP and a comment
cat > "$work/img.ps" <<'PS'
0.2 0.5 0.8 setrgbcolor 0 0 moveto 64 0 lineto 64 48 lineto 0 48 lineto fill showpage
PS
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=jpeg -g64x48 -r72 -sOutputFile=water-filter.jpg "$work/img.ps"
exiftool -q -overwrite_original -IPTC:ObjectName='Water filter setup' \
  -IPTC:Caption-Abstract='A gravity water filter on the kitchen shelf.' -IPTC:By-line='Ann Photo' \
  -IPTC:Keywords=water -IPTC:Keywords=filter -EXIF:Artist='Ann Photo' \
  -EXIF:DateTimeOriginal='2022:07:01 10:20:30' water-filter.jpg
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=png16m -g64x48 -r72 -sOutputFile=shelter-map.png "$work/img.ps"
exiftool -q -overwrite_original -XMP-dc:Title='Shelter map' -XMP-dc:Description='Where to meet.' \
  -XMP-dc:Creator='Town Council' -XMP-dc:Subject=map -XMP-dc:Subject=shelter shelter-map.png
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=ppmraw -g64x48 -r72 -sOutputFile="$work/img.ppm" "$work/img.ps"
cwebp -quiet "$work/img.ppm" -o candles.webp
exiftool -q -overwrite_original -EXIF:ImageDescription='Candles and matches' -EXIF:Artist='Bo Light' \
  -EXIF:DateTimeOriginal='2020:12:24 18:00:00' candles.webp
printf 'GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b' > "$work/radio.gif"
exiftool -q -XMP-dc:Title='Crank radio' -Comment='Hand-cranked emergency radio' -o radio.gif "$work/radio.gif"

# --- Broken inputs
head -c 600 water-guide.pdf > "$work/broken.pdf"
printf '%%PDF-1.7\nnot really a pdf\n' > "$work/fake.pdf"
printf '\xff\xd8\xff\xe0 truncated jpeg' > "$work/broken.jpg"
head -c 3000 pantry-recipes.epub > "$work/broken.epub"
# a PDF with a user password (qpdf, AES-256): its metadata cannot be read without it
qpdf --encrypt secret-user secret-owner 256 -- water-guide.pdf locked.pdf

# --- Archives of several documents
cp water-guide.pdf pantry-recipes.epub water-filter.jpg "$work/"
echo 'plain text is not a supported format' > "$work/readme.txt"
(cd "$work" && zip -q "$OLDPWD/library.zip" water-guide.pdf pantry-recipes.epub water-filter.jpg readme.txt)
(cd "$work" && 7z a -bd -bso0 "$OLDPWD/library.7z" water-guide.pdf pantry-recipes.epub readme.txt)
mkdir -p "$work/sub" && cp notvorrat.pdf "$work/sub/"
(cd "$work" && zip -q "$OLDPWD/with-broken.zip" water-guide.pdf broken.pdf broken.jpg fake.pdf broken.epub)
(cd "$work" && cp "$OLDPWD/library.7z" inner.7z && zip -q "$OLDPWD/nested.zip" inner.7z sub/notvorrat.pdf)
(cd "$work" && zip -q -P secret "$OLDPWD/encrypted.zip" water-guide.pdf)
(cd "$work" && 7z a -bd -bso0 -psecret "$OLDPWD/encrypted.7z" water-guide.pdf)
head -c 2000 library.zip > corrupt.zip
head -c 300 library.7z > corrupt.7z
# Entry names that try to escape: ../../escape.pdf and an absolute path (Python's zipfile keeps them)
python3 - "$work/water.pdf" <<'PY'
import sys, zipfile
data = open(sys.argv[1], 'rb').read()
with zipfile.ZipFile('traversal.zip', 'w') as z:
    z.writestr('../../escape.pdf', data)
    z.writestr('/etc/absolute.pdf', data)
PY
# A zip bomb: 400 MB of zeros in one entry, about 400 kB compressed
dd if=/dev/zero bs=1M count=400 status=none | zip -q -9 bomb.zip -
# Nesting deeper than allowed: zip in zip in zip in zip
cp library.zip "$work/level3.zip"
for level in 2 1 0; do (cd "$work" && zip -q "level$level.zip" "level$((level + 1)).zip"); done
cp "$work/level0.zip" deep.zip
ls -la
