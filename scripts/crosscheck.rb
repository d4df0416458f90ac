# frozen_string_literal: true

# Compares rspec-scout's method inventory with what Ruby itself parses.
#
#   rspec-scout symbols DIR --format json --root DIR | ruby scripts/crosscheck.rb DIR
#
# For every file rspec-scout parsed cleanly, Ruby's own parser (RubyVM::AbstractSyntaxTree)
# lists every `def` with its first and last line. The two lists must be equal as multisets
# of [name, first_line, last_line]. Files Ruby cannot parse (newer syntax than this Ruby,
# or broken files) are counted, not compared. Prints a report; exits 1 on any disagreement.

require "json"

root = ARGV.fetch(0) { abort "usage: crosscheck.rb ROOT < symbols.json" }
answer = JSON.parse($stdin.read)

def ruby_defs(node, out)
  return out unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)

  case node.type
  when :DEFN
    out << [node.children[0].to_s, node.first_lineno, node.last_lineno]
  when :DEFS
    out << [node.children[1].to_s, node.first_lineno, node.last_lineno]
  end
  node.children.each { |child| ruby_defs(child, out) }
  out
end

compared = 0
skipped_ruby = 0
skipped_ours = 0
methods = 0
disagreements = []

answer.fetch("files").each do |file|
  if file["parse"] != "ok"
    skipped_ours += 1
    next
  end
  path = File.join(root, file.fetch("path"))
  source = File.binread(path)
  begin
    ast = RubyVM::AbstractSyntaxTree.parse(source)
  rescue SyntaxError, ArgumentError, EncodingError
    skipped_ruby += 1
    next
  end
  theirs = ruby_defs(ast, []).sort
  ours = file.fetch("methods").map { |m| [m.fetch("name"), m.fetch("line_range")[0], m.fetch("line_range")[1]] }.sort
  compared += 1
  methods += theirs.size
  next if theirs == ours

  missing = theirs - ours
  extra = ours - theirs
  disagreements << { "path" => file["path"], "only_ruby" => missing, "only_rspec_scout" => extra }
end

puts "files compared: #{compared}"
puts "methods compared: #{methods}"
puts "files Ruby #{RUBY_VERSION} could not parse (skipped): #{skipped_ruby}"
puts "files rspec-scout reported as not parsing cleanly (skipped): #{skipped_ours}"
puts "files that disagree: #{disagreements.size}"
disagreements.each do |d|
  puts "- #{d['path']}"
  d["only_ruby"].each { |m| puts "    only Ruby:        #{m.inspect}" }
  d["only_rspec_scout"].each { |m| puts "    only rspec-scout: #{m.inspect}" }
end
exit(disagreements.empty? ? 0 : 1)
