#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# docs.sh: build the project's documentation pages with Debian's Sphinx and
# the kernel's own extensions (kernel-doc, automarkup), failing on any
# warning, without building the whole kernel book; and check the manual
# pages with groff -ww.  Called by lint.sh, which counts each as a gate.
. "$(dirname "$0")/lib.sh"

PAGES="Documentation/driver-api/revoke.rst Documentation/userspace-api/revokeat.rst
	Documentation/filesystems/vfs.rst"
MANPAGES="tools/revoke/revoke.1 tools/revoke/revokeat.2"

# sphinx LOG: a book of just $PAGES, laid out as in the tree so that the
# pages' :doc: links between them resolve.
sphinx() {
	local src=$BUILD/docs/src out=$BUILD/docs/html p
	command -v sphinx-build >/dev/null || die "sphinx-build missing: run harness/deps.sh"
	rm -rf "$src" "$out"
	mkdir -p "$src"
	{
		echo "Revoke"
		echo "======"
		echo
		echo ".. toctree::"
		echo
		for p in $PAGES; do
			p=${p#Documentation/}
			echo "   ${p%.rst}"
		done
	} >"$src/index.rst"
	for p in $PAGES; do
		mkdir -p "$src/$(dirname "${p#Documentation/}")"
		cp "$TREE/$p" "$src/${p#Documentation/}"
	done
	cat >"$src/conf.py" <<CONF
import sys
sys.path.insert(0, '$TREE/Documentation/sphinx')
project = 'revoke'
extensions = ['kerneldoc', 'automarkup', 'sphinx.ext.autosectionlabel']
autosectionlabel_prefix_document = True
autosectionlabel_maxdepth = 2
kerneldoc_bin = '$TREE/scripts/kernel-doc'
kerneldoc_srctree = '$TREE'
primary_domain = 'c'
highlight_language = 'none'
CONF
	sphinx-build -W --keep-going -q -b html "$src" "$out" >"$1" 2>&1
}

# manpages LOG: groff's warnings, as the man-pages project checks them.
manpages() {
	local m st=0
	: >"$1"
	for m in $MANPAGES; do
		LC_ALL=C.UTF-8 groff -ww -z -man "$TOP/$m" >>"$1" 2>&1 || st=1
	done
	[ "$st" = 0 ] && [ ! -s "$1" ]
}

case ${1:-} in
sphinx) sphinx "$2" ;;
man) manpages "$2" ;;
*) die "usage: docs.sh sphinx|man LOG" ;;
esac
