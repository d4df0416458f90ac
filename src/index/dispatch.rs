//! Depth-bounded dispatch over prism's node types (generated from the ruby-prism bindings).
//!
//! `Visit::visit` in ruby-prism recurses without limit, and prism builds left-deep trees for
//! long operator or method chains (`a + a + a ...`), so a single long line could overflow the
//! stack. Every visitor in the index calls [`dispatch`] from its own `visit` after checking
//! its depth budget; this file is the default dispatch that `Visit::visit` would do.
//! Regenerate it when ruby-prism adds node types: the match is exhaustive, so the build says so.

use ruby_prism::{Node, Visit};

/// Calls the `visit_*_node` method of `visitor` that matches the concrete type of `node`.
#[allow(clippy::too_many_lines)]
pub(crate) fn dispatch<'pr, V: Visit<'pr> + ?Sized>(visitor: &mut V, node: &Node<'pr>) {
    match node {
        Node::AliasGlobalVariableNode { .. } => {
            if let Some(n) = node.as_alias_global_variable_node() {
                visitor.visit_alias_global_variable_node(&n);
            }
        }
        Node::AliasMethodNode { .. } => {
            if let Some(n) = node.as_alias_method_node() {
                visitor.visit_alias_method_node(&n);
            }
        }
        Node::AlternationPatternNode { .. } => {
            if let Some(n) = node.as_alternation_pattern_node() {
                visitor.visit_alternation_pattern_node(&n);
            }
        }
        Node::AndNode { .. } => {
            if let Some(n) = node.as_and_node() {
                visitor.visit_and_node(&n);
            }
        }
        Node::ArgumentsNode { .. } => {
            if let Some(n) = node.as_arguments_node() {
                visitor.visit_arguments_node(&n);
            }
        }
        Node::ArrayNode { .. } => {
            if let Some(n) = node.as_array_node() {
                visitor.visit_array_node(&n);
            }
        }
        Node::ArrayPatternNode { .. } => {
            if let Some(n) = node.as_array_pattern_node() {
                visitor.visit_array_pattern_node(&n);
            }
        }
        Node::AssocNode { .. } => {
            if let Some(n) = node.as_assoc_node() {
                visitor.visit_assoc_node(&n);
            }
        }
        Node::AssocSplatNode { .. } => {
            if let Some(n) = node.as_assoc_splat_node() {
                visitor.visit_assoc_splat_node(&n);
            }
        }
        Node::BackReferenceReadNode { .. } => {
            if let Some(n) = node.as_back_reference_read_node() {
                visitor.visit_back_reference_read_node(&n);
            }
        }
        Node::BeginNode { .. } => {
            if let Some(n) = node.as_begin_node() {
                visitor.visit_begin_node(&n);
            }
        }
        Node::BlockArgumentNode { .. } => {
            if let Some(n) = node.as_block_argument_node() {
                visitor.visit_block_argument_node(&n);
            }
        }
        Node::BlockLocalVariableNode { .. } => {
            if let Some(n) = node.as_block_local_variable_node() {
                visitor.visit_block_local_variable_node(&n);
            }
        }
        Node::BlockNode { .. } => {
            if let Some(n) = node.as_block_node() {
                visitor.visit_block_node(&n);
            }
        }
        Node::BlockParameterNode { .. } => {
            if let Some(n) = node.as_block_parameter_node() {
                visitor.visit_block_parameter_node(&n);
            }
        }
        Node::BlockParametersNode { .. } => {
            if let Some(n) = node.as_block_parameters_node() {
                visitor.visit_block_parameters_node(&n);
            }
        }
        Node::BreakNode { .. } => {
            if let Some(n) = node.as_break_node() {
                visitor.visit_break_node(&n);
            }
        }
        Node::CallAndWriteNode { .. } => {
            if let Some(n) = node.as_call_and_write_node() {
                visitor.visit_call_and_write_node(&n);
            }
        }
        Node::CallNode { .. } => {
            if let Some(n) = node.as_call_node() {
                visitor.visit_call_node(&n);
            }
        }
        Node::CallOperatorWriteNode { .. } => {
            if let Some(n) = node.as_call_operator_write_node() {
                visitor.visit_call_operator_write_node(&n);
            }
        }
        Node::CallOrWriteNode { .. } => {
            if let Some(n) = node.as_call_or_write_node() {
                visitor.visit_call_or_write_node(&n);
            }
        }
        Node::CallTargetNode { .. } => {
            if let Some(n) = node.as_call_target_node() {
                visitor.visit_call_target_node(&n);
            }
        }
        Node::CapturePatternNode { .. } => {
            if let Some(n) = node.as_capture_pattern_node() {
                visitor.visit_capture_pattern_node(&n);
            }
        }
        Node::CaseMatchNode { .. } => {
            if let Some(n) = node.as_case_match_node() {
                visitor.visit_case_match_node(&n);
            }
        }
        Node::CaseNode { .. } => {
            if let Some(n) = node.as_case_node() {
                visitor.visit_case_node(&n);
            }
        }
        Node::ClassNode { .. } => {
            if let Some(n) = node.as_class_node() {
                visitor.visit_class_node(&n);
            }
        }
        Node::ClassVariableAndWriteNode { .. } => {
            if let Some(n) = node.as_class_variable_and_write_node() {
                visitor.visit_class_variable_and_write_node(&n);
            }
        }
        Node::ClassVariableOperatorWriteNode { .. } => {
            if let Some(n) = node.as_class_variable_operator_write_node() {
                visitor.visit_class_variable_operator_write_node(&n);
            }
        }
        Node::ClassVariableOrWriteNode { .. } => {
            if let Some(n) = node.as_class_variable_or_write_node() {
                visitor.visit_class_variable_or_write_node(&n);
            }
        }
        Node::ClassVariableReadNode { .. } => {
            if let Some(n) = node.as_class_variable_read_node() {
                visitor.visit_class_variable_read_node(&n);
            }
        }
        Node::ClassVariableTargetNode { .. } => {
            if let Some(n) = node.as_class_variable_target_node() {
                visitor.visit_class_variable_target_node(&n);
            }
        }
        Node::ClassVariableWriteNode { .. } => {
            if let Some(n) = node.as_class_variable_write_node() {
                visitor.visit_class_variable_write_node(&n);
            }
        }
        Node::ConstantAndWriteNode { .. } => {
            if let Some(n) = node.as_constant_and_write_node() {
                visitor.visit_constant_and_write_node(&n);
            }
        }
        Node::ConstantOperatorWriteNode { .. } => {
            if let Some(n) = node.as_constant_operator_write_node() {
                visitor.visit_constant_operator_write_node(&n);
            }
        }
        Node::ConstantOrWriteNode { .. } => {
            if let Some(n) = node.as_constant_or_write_node() {
                visitor.visit_constant_or_write_node(&n);
            }
        }
        Node::ConstantPathAndWriteNode { .. } => {
            if let Some(n) = node.as_constant_path_and_write_node() {
                visitor.visit_constant_path_and_write_node(&n);
            }
        }
        Node::ConstantPathNode { .. } => {
            if let Some(n) = node.as_constant_path_node() {
                visitor.visit_constant_path_node(&n);
            }
        }
        Node::ConstantPathOperatorWriteNode { .. } => {
            if let Some(n) = node.as_constant_path_operator_write_node() {
                visitor.visit_constant_path_operator_write_node(&n);
            }
        }
        Node::ConstantPathOrWriteNode { .. } => {
            if let Some(n) = node.as_constant_path_or_write_node() {
                visitor.visit_constant_path_or_write_node(&n);
            }
        }
        Node::ConstantPathTargetNode { .. } => {
            if let Some(n) = node.as_constant_path_target_node() {
                visitor.visit_constant_path_target_node(&n);
            }
        }
        Node::ConstantPathWriteNode { .. } => {
            if let Some(n) = node.as_constant_path_write_node() {
                visitor.visit_constant_path_write_node(&n);
            }
        }
        Node::ConstantReadNode { .. } => {
            if let Some(n) = node.as_constant_read_node() {
                visitor.visit_constant_read_node(&n);
            }
        }
        Node::ConstantTargetNode { .. } => {
            if let Some(n) = node.as_constant_target_node() {
                visitor.visit_constant_target_node(&n);
            }
        }
        Node::ConstantWriteNode { .. } => {
            if let Some(n) = node.as_constant_write_node() {
                visitor.visit_constant_write_node(&n);
            }
        }
        Node::DefNode { .. } => {
            if let Some(n) = node.as_def_node() {
                visitor.visit_def_node(&n);
            }
        }
        Node::DefinedNode { .. } => {
            if let Some(n) = node.as_defined_node() {
                visitor.visit_defined_node(&n);
            }
        }
        Node::ElseNode { .. } => {
            if let Some(n) = node.as_else_node() {
                visitor.visit_else_node(&n);
            }
        }
        Node::EmbeddedStatementsNode { .. } => {
            if let Some(n) = node.as_embedded_statements_node() {
                visitor.visit_embedded_statements_node(&n);
            }
        }
        Node::EmbeddedVariableNode { .. } => {
            if let Some(n) = node.as_embedded_variable_node() {
                visitor.visit_embedded_variable_node(&n);
            }
        }
        Node::EnsureNode { .. } => {
            if let Some(n) = node.as_ensure_node() {
                visitor.visit_ensure_node(&n);
            }
        }
        Node::ErrorRecoveryNode { .. } => {
            if let Some(n) = node.as_error_recovery_node() {
                visitor.visit_error_recovery_node(&n);
            }
        }
        Node::FalseNode { .. } => {
            if let Some(n) = node.as_false_node() {
                visitor.visit_false_node(&n);
            }
        }
        Node::FindPatternNode { .. } => {
            if let Some(n) = node.as_find_pattern_node() {
                visitor.visit_find_pattern_node(&n);
            }
        }
        Node::FlipFlopNode { .. } => {
            if let Some(n) = node.as_flip_flop_node() {
                visitor.visit_flip_flop_node(&n);
            }
        }
        Node::FloatNode { .. } => {
            if let Some(n) = node.as_float_node() {
                visitor.visit_float_node(&n);
            }
        }
        Node::ForNode { .. } => {
            if let Some(n) = node.as_for_node() {
                visitor.visit_for_node(&n);
            }
        }
        Node::ForwardingArgumentsNode { .. } => {
            if let Some(n) = node.as_forwarding_arguments_node() {
                visitor.visit_forwarding_arguments_node(&n);
            }
        }
        Node::ForwardingParameterNode { .. } => {
            if let Some(n) = node.as_forwarding_parameter_node() {
                visitor.visit_forwarding_parameter_node(&n);
            }
        }
        Node::ForwardingSuperNode { .. } => {
            if let Some(n) = node.as_forwarding_super_node() {
                visitor.visit_forwarding_super_node(&n);
            }
        }
        Node::GlobalVariableAndWriteNode { .. } => {
            if let Some(n) = node.as_global_variable_and_write_node() {
                visitor.visit_global_variable_and_write_node(&n);
            }
        }
        Node::GlobalVariableOperatorWriteNode { .. } => {
            if let Some(n) = node.as_global_variable_operator_write_node() {
                visitor.visit_global_variable_operator_write_node(&n);
            }
        }
        Node::GlobalVariableOrWriteNode { .. } => {
            if let Some(n) = node.as_global_variable_or_write_node() {
                visitor.visit_global_variable_or_write_node(&n);
            }
        }
        Node::GlobalVariableReadNode { .. } => {
            if let Some(n) = node.as_global_variable_read_node() {
                visitor.visit_global_variable_read_node(&n);
            }
        }
        Node::GlobalVariableTargetNode { .. } => {
            if let Some(n) = node.as_global_variable_target_node() {
                visitor.visit_global_variable_target_node(&n);
            }
        }
        Node::GlobalVariableWriteNode { .. } => {
            if let Some(n) = node.as_global_variable_write_node() {
                visitor.visit_global_variable_write_node(&n);
            }
        }
        Node::HashNode { .. } => {
            if let Some(n) = node.as_hash_node() {
                visitor.visit_hash_node(&n);
            }
        }
        Node::HashPatternNode { .. } => {
            if let Some(n) = node.as_hash_pattern_node() {
                visitor.visit_hash_pattern_node(&n);
            }
        }
        Node::IfNode { .. } => {
            if let Some(n) = node.as_if_node() {
                visitor.visit_if_node(&n);
            }
        }
        Node::ImaginaryNode { .. } => {
            if let Some(n) = node.as_imaginary_node() {
                visitor.visit_imaginary_node(&n);
            }
        }
        Node::ImplicitNode { .. } => {
            if let Some(n) = node.as_implicit_node() {
                visitor.visit_implicit_node(&n);
            }
        }
        Node::ImplicitRestNode { .. } => {
            if let Some(n) = node.as_implicit_rest_node() {
                visitor.visit_implicit_rest_node(&n);
            }
        }
        Node::InNode { .. } => {
            if let Some(n) = node.as_in_node() {
                visitor.visit_in_node(&n);
            }
        }
        Node::IndexAndWriteNode { .. } => {
            if let Some(n) = node.as_index_and_write_node() {
                visitor.visit_index_and_write_node(&n);
            }
        }
        Node::IndexOperatorWriteNode { .. } => {
            if let Some(n) = node.as_index_operator_write_node() {
                visitor.visit_index_operator_write_node(&n);
            }
        }
        Node::IndexOrWriteNode { .. } => {
            if let Some(n) = node.as_index_or_write_node() {
                visitor.visit_index_or_write_node(&n);
            }
        }
        Node::IndexTargetNode { .. } => {
            if let Some(n) = node.as_index_target_node() {
                visitor.visit_index_target_node(&n);
            }
        }
        Node::InstanceVariableAndWriteNode { .. } => {
            if let Some(n) = node.as_instance_variable_and_write_node() {
                visitor.visit_instance_variable_and_write_node(&n);
            }
        }
        Node::InstanceVariableOperatorWriteNode { .. } => {
            if let Some(n) = node.as_instance_variable_operator_write_node() {
                visitor.visit_instance_variable_operator_write_node(&n);
            }
        }
        Node::InstanceVariableOrWriteNode { .. } => {
            if let Some(n) = node.as_instance_variable_or_write_node() {
                visitor.visit_instance_variable_or_write_node(&n);
            }
        }
        Node::InstanceVariableReadNode { .. } => {
            if let Some(n) = node.as_instance_variable_read_node() {
                visitor.visit_instance_variable_read_node(&n);
            }
        }
        Node::InstanceVariableTargetNode { .. } => {
            if let Some(n) = node.as_instance_variable_target_node() {
                visitor.visit_instance_variable_target_node(&n);
            }
        }
        Node::InstanceVariableWriteNode { .. } => {
            if let Some(n) = node.as_instance_variable_write_node() {
                visitor.visit_instance_variable_write_node(&n);
            }
        }
        Node::IntegerNode { .. } => {
            if let Some(n) = node.as_integer_node() {
                visitor.visit_integer_node(&n);
            }
        }
        Node::InterpolatedMatchLastLineNode { .. } => {
            if let Some(n) = node.as_interpolated_match_last_line_node() {
                visitor.visit_interpolated_match_last_line_node(&n);
            }
        }
        Node::InterpolatedRegularExpressionNode { .. } => {
            if let Some(n) = node.as_interpolated_regular_expression_node() {
                visitor.visit_interpolated_regular_expression_node(&n);
            }
        }
        Node::InterpolatedStringNode { .. } => {
            if let Some(n) = node.as_interpolated_string_node() {
                visitor.visit_interpolated_string_node(&n);
            }
        }
        Node::InterpolatedSymbolNode { .. } => {
            if let Some(n) = node.as_interpolated_symbol_node() {
                visitor.visit_interpolated_symbol_node(&n);
            }
        }
        Node::InterpolatedXStringNode { .. } => {
            if let Some(n) = node.as_interpolated_x_string_node() {
                visitor.visit_interpolated_x_string_node(&n);
            }
        }
        Node::ItLocalVariableReadNode { .. } => {
            if let Some(n) = node.as_it_local_variable_read_node() {
                visitor.visit_it_local_variable_read_node(&n);
            }
        }
        Node::ItParametersNode { .. } => {
            if let Some(n) = node.as_it_parameters_node() {
                visitor.visit_it_parameters_node(&n);
            }
        }
        Node::KeywordHashNode { .. } => {
            if let Some(n) = node.as_keyword_hash_node() {
                visitor.visit_keyword_hash_node(&n);
            }
        }
        Node::KeywordRestParameterNode { .. } => {
            if let Some(n) = node.as_keyword_rest_parameter_node() {
                visitor.visit_keyword_rest_parameter_node(&n);
            }
        }
        Node::LambdaNode { .. } => {
            if let Some(n) = node.as_lambda_node() {
                visitor.visit_lambda_node(&n);
            }
        }
        Node::LocalVariableAndWriteNode { .. } => {
            if let Some(n) = node.as_local_variable_and_write_node() {
                visitor.visit_local_variable_and_write_node(&n);
            }
        }
        Node::LocalVariableOperatorWriteNode { .. } => {
            if let Some(n) = node.as_local_variable_operator_write_node() {
                visitor.visit_local_variable_operator_write_node(&n);
            }
        }
        Node::LocalVariableOrWriteNode { .. } => {
            if let Some(n) = node.as_local_variable_or_write_node() {
                visitor.visit_local_variable_or_write_node(&n);
            }
        }
        Node::LocalVariableReadNode { .. } => {
            if let Some(n) = node.as_local_variable_read_node() {
                visitor.visit_local_variable_read_node(&n);
            }
        }
        Node::LocalVariableTargetNode { .. } => {
            if let Some(n) = node.as_local_variable_target_node() {
                visitor.visit_local_variable_target_node(&n);
            }
        }
        Node::LocalVariableWriteNode { .. } => {
            if let Some(n) = node.as_local_variable_write_node() {
                visitor.visit_local_variable_write_node(&n);
            }
        }
        Node::MatchLastLineNode { .. } => {
            if let Some(n) = node.as_match_last_line_node() {
                visitor.visit_match_last_line_node(&n);
            }
        }
        Node::MatchPredicateNode { .. } => {
            if let Some(n) = node.as_match_predicate_node() {
                visitor.visit_match_predicate_node(&n);
            }
        }
        Node::MatchRequiredNode { .. } => {
            if let Some(n) = node.as_match_required_node() {
                visitor.visit_match_required_node(&n);
            }
        }
        Node::MatchWriteNode { .. } => {
            if let Some(n) = node.as_match_write_node() {
                visitor.visit_match_write_node(&n);
            }
        }
        Node::ModuleNode { .. } => {
            if let Some(n) = node.as_module_node() {
                visitor.visit_module_node(&n);
            }
        }
        Node::MultiTargetNode { .. } => {
            if let Some(n) = node.as_multi_target_node() {
                visitor.visit_multi_target_node(&n);
            }
        }
        Node::MultiWriteNode { .. } => {
            if let Some(n) = node.as_multi_write_node() {
                visitor.visit_multi_write_node(&n);
            }
        }
        Node::NextNode { .. } => {
            if let Some(n) = node.as_next_node() {
                visitor.visit_next_node(&n);
            }
        }
        Node::NilNode { .. } => {
            if let Some(n) = node.as_nil_node() {
                visitor.visit_nil_node(&n);
            }
        }
        Node::NoBlockParameterNode { .. } => {
            if let Some(n) = node.as_no_block_parameter_node() {
                visitor.visit_no_block_parameter_node(&n);
            }
        }
        Node::NoKeywordsParameterNode { .. } => {
            if let Some(n) = node.as_no_keywords_parameter_node() {
                visitor.visit_no_keywords_parameter_node(&n);
            }
        }
        Node::NumberedParametersNode { .. } => {
            if let Some(n) = node.as_numbered_parameters_node() {
                visitor.visit_numbered_parameters_node(&n);
            }
        }
        Node::NumberedReferenceReadNode { .. } => {
            if let Some(n) = node.as_numbered_reference_read_node() {
                visitor.visit_numbered_reference_read_node(&n);
            }
        }
        Node::OptionalKeywordParameterNode { .. } => {
            if let Some(n) = node.as_optional_keyword_parameter_node() {
                visitor.visit_optional_keyword_parameter_node(&n);
            }
        }
        Node::OptionalParameterNode { .. } => {
            if let Some(n) = node.as_optional_parameter_node() {
                visitor.visit_optional_parameter_node(&n);
            }
        }
        Node::OrNode { .. } => {
            if let Some(n) = node.as_or_node() {
                visitor.visit_or_node(&n);
            }
        }
        Node::ParametersNode { .. } => {
            if let Some(n) = node.as_parameters_node() {
                visitor.visit_parameters_node(&n);
            }
        }
        Node::ParenthesesNode { .. } => {
            if let Some(n) = node.as_parentheses_node() {
                visitor.visit_parentheses_node(&n);
            }
        }
        Node::PinnedExpressionNode { .. } => {
            if let Some(n) = node.as_pinned_expression_node() {
                visitor.visit_pinned_expression_node(&n);
            }
        }
        Node::PinnedVariableNode { .. } => {
            if let Some(n) = node.as_pinned_variable_node() {
                visitor.visit_pinned_variable_node(&n);
            }
        }
        Node::PostExecutionNode { .. } => {
            if let Some(n) = node.as_post_execution_node() {
                visitor.visit_post_execution_node(&n);
            }
        }
        Node::PreExecutionNode { .. } => {
            if let Some(n) = node.as_pre_execution_node() {
                visitor.visit_pre_execution_node(&n);
            }
        }
        Node::ProgramNode { .. } => {
            if let Some(n) = node.as_program_node() {
                visitor.visit_program_node(&n);
            }
        }
        Node::RangeNode { .. } => {
            if let Some(n) = node.as_range_node() {
                visitor.visit_range_node(&n);
            }
        }
        Node::RationalNode { .. } => {
            if let Some(n) = node.as_rational_node() {
                visitor.visit_rational_node(&n);
            }
        }
        Node::RedoNode { .. } => {
            if let Some(n) = node.as_redo_node() {
                visitor.visit_redo_node(&n);
            }
        }
        Node::RegularExpressionNode { .. } => {
            if let Some(n) = node.as_regular_expression_node() {
                visitor.visit_regular_expression_node(&n);
            }
        }
        Node::RequiredKeywordParameterNode { .. } => {
            if let Some(n) = node.as_required_keyword_parameter_node() {
                visitor.visit_required_keyword_parameter_node(&n);
            }
        }
        Node::RequiredParameterNode { .. } => {
            if let Some(n) = node.as_required_parameter_node() {
                visitor.visit_required_parameter_node(&n);
            }
        }
        Node::RescueModifierNode { .. } => {
            if let Some(n) = node.as_rescue_modifier_node() {
                visitor.visit_rescue_modifier_node(&n);
            }
        }
        Node::RescueNode { .. } => {
            if let Some(n) = node.as_rescue_node() {
                visitor.visit_rescue_node(&n);
            }
        }
        Node::RestParameterNode { .. } => {
            if let Some(n) = node.as_rest_parameter_node() {
                visitor.visit_rest_parameter_node(&n);
            }
        }
        Node::RetryNode { .. } => {
            if let Some(n) = node.as_retry_node() {
                visitor.visit_retry_node(&n);
            }
        }
        Node::ReturnNode { .. } => {
            if let Some(n) = node.as_return_node() {
                visitor.visit_return_node(&n);
            }
        }
        Node::SelfNode { .. } => {
            if let Some(n) = node.as_self_node() {
                visitor.visit_self_node(&n);
            }
        }
        Node::ShareableConstantNode { .. } => {
            if let Some(n) = node.as_shareable_constant_node() {
                visitor.visit_shareable_constant_node(&n);
            }
        }
        Node::SingletonClassNode { .. } => {
            if let Some(n) = node.as_singleton_class_node() {
                visitor.visit_singleton_class_node(&n);
            }
        }
        Node::SourceEncodingNode { .. } => {
            if let Some(n) = node.as_source_encoding_node() {
                visitor.visit_source_encoding_node(&n);
            }
        }
        Node::SourceFileNode { .. } => {
            if let Some(n) = node.as_source_file_node() {
                visitor.visit_source_file_node(&n);
            }
        }
        Node::SourceLineNode { .. } => {
            if let Some(n) = node.as_source_line_node() {
                visitor.visit_source_line_node(&n);
            }
        }
        Node::SplatNode { .. } => {
            if let Some(n) = node.as_splat_node() {
                visitor.visit_splat_node(&n);
            }
        }
        Node::StatementsNode { .. } => {
            if let Some(n) = node.as_statements_node() {
                visitor.visit_statements_node(&n);
            }
        }
        Node::StringNode { .. } => {
            if let Some(n) = node.as_string_node() {
                visitor.visit_string_node(&n);
            }
        }
        Node::SuperNode { .. } => {
            if let Some(n) = node.as_super_node() {
                visitor.visit_super_node(&n);
            }
        }
        Node::SymbolNode { .. } => {
            if let Some(n) = node.as_symbol_node() {
                visitor.visit_symbol_node(&n);
            }
        }
        Node::TrueNode { .. } => {
            if let Some(n) = node.as_true_node() {
                visitor.visit_true_node(&n);
            }
        }
        Node::UndefNode { .. } => {
            if let Some(n) = node.as_undef_node() {
                visitor.visit_undef_node(&n);
            }
        }
        Node::UnlessNode { .. } => {
            if let Some(n) = node.as_unless_node() {
                visitor.visit_unless_node(&n);
            }
        }
        Node::UntilNode { .. } => {
            if let Some(n) = node.as_until_node() {
                visitor.visit_until_node(&n);
            }
        }
        Node::WhenNode { .. } => {
            if let Some(n) = node.as_when_node() {
                visitor.visit_when_node(&n);
            }
        }
        Node::WhileNode { .. } => {
            if let Some(n) = node.as_while_node() {
                visitor.visit_while_node(&n);
            }
        }
        Node::XStringNode { .. } => {
            if let Some(n) = node.as_x_string_node() {
                visitor.visit_x_string_node(&n);
            }
        }
        Node::YieldNode { .. } => {
            if let Some(n) = node.as_yield_node() {
                visitor.visit_yield_node(&n);
            }
        }
    }
}
