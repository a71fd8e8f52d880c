#!/usr/bin/env python3
"""The man page man/replex.1 against the program and groff.

usage: test_man.py REPLEX.1 REPLEX_EXE PROJECT_VERSION

1. groff reads it without a warning (-ww: all warnings), and so does
   man --warnings -l where man-db is installed;
2. its .TH line names the project version;
3. its COMMANDS section has every command `replex --help` lists;
4. for every command, the options its OPTIONS subsection (.SS) lists are
   exactly those `replex CMD --help` lists.
Exits 77 (skipped) where groff is not installed.
"""
import re
import shutil
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])(--?[a-z][a-z-]*)')


def plain(line):
    """A roff line as text: no macro name, quotes or font escapes, \\- as
    -."""
    line = re.sub(r'^\.[A-Z]+ *', '', line)
    line = re.sub(r'\\f[BIRP]', '', line).replace('"', '')
    return line.replace('\\-', '-').replace('\\(aq', "'")


def help_text(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True,
                       check=False)
    if r.returncode != 0:
        sys.exit('%s %s: exit %d\n%s' % (exe, ' '.join(args), r.returncode,
                                         r.stderr))
    return r.stdout


def help_commands(exe):
    out, on = [], False
    for line in help_text(exe, '--help').splitlines():
        if line.startswith('commands:'):
            on = True
        elif on and line.strip():
            if not line.startswith('  '):
                break
            out.append(line.split()[0])
        elif on:
            break
    return out


def help_options(exe, cmd):
    """Options of `replex CMD --help`: the lines of its options: block."""
    opts = set()
    for line in help_text(exe, cmd, '--help').splitlines():
        m = re.match(r'  (-[\w-]+(?:, -[\w-]+)?)', line)
        if m:
            opts.update(OPT.findall(m.group(1)))
    return opts


def sections(page):
    """{.SH or .SS title: [lines]} in page order."""
    out, cur = {}, None
    for line in page.splitlines():
        m = re.match(r'\.S[HS] +"?([^"]*)"?$', line)
        if m:
            cur = m.group(1).strip()
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def tagged(lines):
    """The tag line of every .TP item, as text."""
    return [plain(lines[i + 1]) for i, l in enumerate(lines[:-1])
            if l.startswith('.TP')]


def main():
    man, exe, version = sys.argv[1], sys.argv[2], sys.argv[3]
    fails = []
    groff = shutil.which('groff')
    if groff is None:
        print('groff not found (Debian: groff-base): skipped')
        return 77
    r = subprocess.run([groff, '-ww', '-z', '-man', '-Tutf8', man],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0 or r.stderr.strip():
        fails.append('groff -ww -man: exit %d\n%s' % (r.returncode, r.stderr))
    else:
        print('ok: groff -ww -z -man -Tutf8 reads it without a warning')
    man_prog = shutil.which('man')
    if man_prog:  # man-db, as a user reads it
        r = subprocess.run([man_prog, '--warnings', '-l', man],
                           capture_output=True, text=True, check=False,
                           env={'PATH': '/usr/bin:/bin', 'MANWIDTH': '80',
                                'MANPAGER': 'cat', 'PAGER': 'cat',
                                'LANG': 'C.UTF-8'})
        if r.returncode != 0 or r.stderr.strip() or 'EXIT STATUS' not in \
                r.stdout:
            fails.append('man --warnings -l: exit %d\n%s'
                         % (r.returncode, r.stderr))
        else:
            print('ok: man --warnings -l renders it without a warning')

    with open(man, encoding='utf-8') as f:
        page = f.read()
    th = re.search(r'^\.TH .*"replex ([^"]*)"', page, flags=re.M)
    if not th or th.group(1) != version:
        fails.append('.TH names version %s, the project is %s'
                     % (th.group(1) if th else '(none)', version))
    else:
        print('ok: .TH names version', version)

    sec = sections(page)
    cmds = help_commands(exe)
    if not cmds:
        fails.append('no commands in `replex --help`')
    listed = [t.split()[0] for t in tagged(sec.get('COMMANDS', []))]
    for c in cmds:
        if c not in listed:
            fails.append('COMMANDS does not describe `%s`' % c)
    for c in listed:
        if c not in cmds:
            fails.append('COMMANDS describes `%s`, which `replex --help` '
                         'does not list' % c)
    print('commands:', ' '.join(cmds))

    for c in cmds:
        if c == 'help':
            continue
        title = [t for t in sec if c in [w.strip() for w in t.split(',')]]
        if len(title) != 1:
            fails.append('no OPTIONS subsection (.SS) for `%s`' % c)
            continue
        in_man = set()
        for t in tagged(sec[title[0]]):
            in_man.update(OPT.findall(t))
        in_help = help_options(exe, c)
        if in_man != in_help:
            fails.append('`%s` options: only in --help: %s; only in the man '
                         'page: %s' % (c, sorted(in_help - in_man) or '-',
                                       sorted(in_man - in_help) or '-'))
        else:
            print('ok: %s: %s' % (c, ' '.join(sorted(in_help))))

    for f in fails:
        print('FAILED:', f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
