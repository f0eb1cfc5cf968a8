#!/usr/bin/perl
# The Markdown file SOURCE as it is installed at DESTINATION (scripts/install-files.sh): each relative
# link to a file of this tree that is installed too points to where that file is installed (a
# compressed docs/x.md is docs/x.md.gz, CHANGELOG.md is changelog.gz, config/examples/ is examples/),
# relative to DESTINATION, keeping its #fragment; a link to a file that is not installed (source
# code, developer notes) becomes its text. Links in code blocks and code spans are not links and
# stay. Absolute URLs and #fragments of the same page stay.
#
#   scripts/doc-links.pl SOURCE DESTINATION <entries
#
# entries: install-files.sh's list, one "destination<TAB>source<TAB>mode" line per file.
# Perl, because every Debian system has it (perl-base is Essential): `make install` on a Pi needs no more.
use strict;
use warnings;

my ($source, $destination) = @ARGV;
die "usage: scripts/doc-links.pl SOURCE DESTINATION <entries\n" unless defined $destination;

my %installed;
while (my $entry = <STDIN>) {
    chomp $entry;
    my ($to, $from) = split /\t/, $entry;
    $installed{$from} = $to if defined $from;
}

# A path with "." and ".." resolved; undef when ".." leaves the tree.
sub normalized {
    my @parts;
    for my $part (split m{/}, shift) {
        next if $part eq '' || $part eq '.';
        if ($part eq '..') { return undef unless @parts; pop @parts; next; }
        push @parts, $part;
    }
    return join '/', @parts;
}

sub directory { my $path = shift; return $path =~ m{^(.*)/[^/]*$} ? $1 : ''; }

# `to` (an absolute installed path) relative to the folder that holds `from` (another one).
sub relative {
    my ($from, $to) = @_;
    my @from = grep { $_ ne '' } split m{/}, directory($from);
    my @to = grep { $_ ne '' } split m{/}, $to;
    while (@from && @to > 1 && $from[0] eq $to[0]) { shift @from; shift @to; }
    return join '/', ('..') x @from, @to;
}

# Where a link target of this file points once installed; undef for a file that is not installed.
# Targets that are not relative paths come back as they are.
sub target {
    my $target = shift;
    return $target if $target =~ m{^([a-zA-Z][a-zA-Z0-9+.-]*:|#|/)};
    my ($path, $fragment) = $target =~ m{^([^#]*)(#.*)?$};
    my $file = normalized((directory($source) eq '' ? '' : directory($source) . '/') . $path);
    return undef unless defined $file && exists $installed{$file};
    return relative($destination, $installed{$file}) . ($fragment // '');
}

open my $input, '<', $source or die "error: cannot read $source: $!\n";
my @lines = <$input>;
close $input;

# Reference definitions ("[label]: target") first, so their uses know whether they stay links.
my %dropped;
my $fence = '';
for my $line (@lines) {
    if ($line =~ m{^ {0,3}(```+|~~~+)}) { $fence = $fence eq '' ? substr($1, 0, 1) : ($fence eq substr($1, 0, 1) ? '' : $fence); next; }
    next if $fence ne '';
    if ($line =~ m{^( {0,3}\[([^\]]+)\]:\s*)(\S+)(.*)$}s) {
        my ($head, $label, $to, $tail) = ($1, $2, $3, $4);
        my $installedTo = target($to);
        if (defined $installedTo) { $line = $head . $installedTo . $tail; } else { $dropped{lc $label} = 1; $line = ''; }
    }
}

# Inline links and images, and uses of dropped reference definitions, outside code spans.
sub links {
    my $text = shift;
    my $label = qr{\[((?:[^\[\]]|\[[^\]]*\])*)\]};
    $text =~ s{(!?)$label\(\s*([^)\s]+)((?:\s+"[^"]*")?)\s*\)}{
        my ($bang, $words, $to, $title) = ($1, $2, $3, $4);
        my $installedTo = target($to);
        defined $installedTo ? "$bang\[$words\]($installedTo$title)" : $words
    }ge;
    $text =~ s{$label\[([^\]]*)\]}{ $dropped{lc($2 eq '' ? $1 : $2)} ? $1 : "[$1][$2]" }ge if %dropped;
    return $text;
}

# Text between code blocks goes through `links` a stretch at a time (a link's text may span lines).
# Code spans are set aside meanwhile: a link's text may hold one, and a span holds no link.
sub stretch {
    my $text = shift;
    my @spans;
    $text =~ s{(`+)((?:(?!\n[ \t]*\n).)*?[^`])\1(?!`)}{ push @spans, $&; "\0" . $#spans . "\0" }gse;
    $text = links($text);
    $text =~ s{\0(\d+)\0}{$spans[$1]}g;
    print $text;
}

$fence = '';
my $text = '';
for my $line (@lines) {
    if ($line =~ m{^ {0,3}(```+|~~~+)}) {
        if ($fence eq '') { stretch($text); $text = ''; }
        $fence = $fence eq '' ? substr($1, 0, 1) : ($fence eq substr($1, 0, 1) ? '' : $fence);
        print $line;
    } elsif ($fence ne '') {
        print $line;
    } else {
        $text .= $line;
    }
}
stretch($text);
