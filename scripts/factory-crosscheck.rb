#!/usr/bin/env ruby
# frozen_string_literal: true

# Cross-checks rspec-scout's factory index against FactoryBot itself.
#
#   ruby scripts/factory-crosscheck.rb ROOT [RSPEC_SCOUT]
#
# Asks `rspec-scout factories --root ROOT --format json` which factory files it read and
# what it found, then loads the same files (in the same order) with the real factory_bot
# gem (Debian's ruby-factory-bot; scripts/test installs it) and lists what FactoryBot
# registered: every factory with its names (aliases), its parent and the traits it defines,
# the global traits and sequences. Prints one line per difference and a summary line
# "N factories, M traits: K differences"; exits 1 when there is any difference.
#
# Factory files name the app's classes when they load (`class: Spree::Order`), so a missing
# constant becomes an empty class here: only the definitions are compared, nothing is built.
# A file FactoryBot cannot load (it needs the app) is reported and its definitions are
# compared only if it defined them before failing.

require "json"
require "open3"

root = ARGV[0] or abort "usage: factory-crosscheck.rb ROOT [RSPEC_SCOUT]"
scout = ARGV[1] || ENV["RSPEC_SCOUT"] || "rspec-scout"

out, err, status = Open3.capture3(scout, "factories", "--root", root, "--format", "json")
# Exit 2 is `status: partial`: a file it could not read fully (its diagnostics say which).
abort "rspec-scout failed: #{err}" unless [0, 2].include?(status.exitstatus)
ours = JSON.parse(out)
(ours["diagnostics"] || []).each { |d| puts "rspec-scout: #{d}" }

begin
  require "factory_bot"
rescue LoadError
  abort "factory_bot is not installed (apt-get install ruby-factory-bot)"
end

# The app is not loaded: a library a factory file requires that is not installed is
# skipped, and any constant it names exists, as a class that answers every class method
# with itself (`PasswordHash.create(...)` at load time).
module Kernel
  alias_method :crosscheck_require, :require

  def require(name)
    crosscheck_require(name)
  rescue LoadError
    false
  end
end

class Object
  def self.const_missing(name)
    stub = Class.new do
      def self.method_missing(*) = self
      def self.respond_to_missing?(*) = true
    end
    const_set(name, stub)
  end
end

load_errors = []
ours.fetch("files").each do |rel|
  begin
    load File.join(root, rel)
  rescue ScriptError, StandardError => e
    load_errors << "#{rel}: #{e.class}: #{e.message.lines.first&.strip}"
  end
end

ruby = {}
FactoryBot::Internal.factories.each do |factory|
  definition = factory.definition
  parent = factory.instance_variable_get(:@parent)
  ruby[factory.name.to_s] = {
    "aliases" => factory.names.map(&:to_s).reject { |n| n == factory.name.to_s }.sort,
    "parent" => parent&.to_s,
    "traits" => definition.defined_traits.map { |t| t.name.to_s }.sort
  }
end
ruby_global = FactoryBot::Internal.traits.map { |t| t.name.to_s }.sort
ruby_sequences = FactoryBot::Internal.sequences.map { |s| s.name.to_s }.sort

mine = {}
ours.fetch("factories").each do |f|
  next unless f["library"] == "factory_bot"

  mine[f["name"]] = {
    "aliases" => (f["aliases"] || []).sort,
    "parent" => f["parent"],
    "traits" => (f["traits"] || []).sort
  }
end

differences = []
(ruby.keys | mine.keys).sort.each do |name|
  r = ruby[name]
  m = mine[name]
  if r.nil?
    differences << "factory :#{name}: indexed, FactoryBot has none"
    next
  end
  if m.nil?
    differences << "factory :#{name}: FactoryBot has it, not indexed"
    next
  end
  %w[aliases parent traits].each do |key|
    next if r[key] == m[key]

    differences << "factory :#{name}: #{key}: FactoryBot #{r[key].inspect}, indexed #{m[key].inspect}"
  end
end
mine_global = (ours["global_traits"] || []).sort
differences << "global traits: FactoryBot #{ruby_global.inspect}, indexed #{mine_global.inspect}" if mine_global != ruby_global
mine_sequences = (ours["sequences"] || []).sort
if mine_sequences != ruby_sequences
  differences << "global sequences: FactoryBot #{ruby_sequences.inspect}, indexed #{mine_sequences.inspect}"
end

load_errors.each { |e| puts "not loaded by FactoryBot: #{e}" }
differences.each { |d| puts d }
traits = ruby.values.sum { |f| f["traits"].size } + ruby_global.size
puts "#{ruby.size} factories, #{traits} traits (FactoryBot #{FactoryBot::VERSION}, #{ours.fetch('files').size} files): #{differences.size} differences"
exit(differences.empty? ? 0 : 1)
