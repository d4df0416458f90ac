//! Depth-bounded dispatch over prism's node types.
//!
//! `Visit::visit` in ruby-prism recurses without limit, and prism builds left-deep trees for
//! long operator or method chains (`a + a + a ...`), so a single long line could overflow the
//! stack. Every visitor in the index calls [`dispatch`] from its own `visit` after checking
//! its depth budget; it does what `Visit::visit` would do for one node.
//!
//! The table below lists every node type with its `as_*` cast and `visit_*` method. When
//! ruby-prism adds a node type the match is no longer exhaustive and the build says which:
//! add its row.

use ruby_prism::{Node, Visit};

/// One match arm per row: `Variant as_variant visit_variant;`.
macro_rules! dispatch_table {
    ($($variant:ident $cast:ident $visit:ident;)+) => {
        /// Calls the `visit_*_node` method of `visitor` that matches the concrete type of
        /// `node`.
        pub(crate) fn dispatch<'pr, V: Visit<'pr> + ?Sized>(visitor: &mut V, node: &Node<'pr>) {
            match node {
                $(Node::$variant { .. } => {
                    if let Some(n) = node.$cast() {
                        visitor.$visit(&n);
                    }
                })+
            }
        }
    };
}

dispatch_table! {
    AliasGlobalVariableNode as_alias_global_variable_node visit_alias_global_variable_node;
    AliasMethodNode as_alias_method_node visit_alias_method_node;
    AlternationPatternNode as_alternation_pattern_node visit_alternation_pattern_node;
    AndNode as_and_node visit_and_node;
    ArgumentsNode as_arguments_node visit_arguments_node;
    ArrayNode as_array_node visit_array_node;
    ArrayPatternNode as_array_pattern_node visit_array_pattern_node;
    AssocNode as_assoc_node visit_assoc_node;
    AssocSplatNode as_assoc_splat_node visit_assoc_splat_node;
    BackReferenceReadNode as_back_reference_read_node visit_back_reference_read_node;
    BeginNode as_begin_node visit_begin_node;
    BlockArgumentNode as_block_argument_node visit_block_argument_node;
    BlockLocalVariableNode as_block_local_variable_node visit_block_local_variable_node;
    BlockNode as_block_node visit_block_node;
    BlockParameterNode as_block_parameter_node visit_block_parameter_node;
    BlockParametersNode as_block_parameters_node visit_block_parameters_node;
    BreakNode as_break_node visit_break_node;
    CallAndWriteNode as_call_and_write_node visit_call_and_write_node;
    CallNode as_call_node visit_call_node;
    CallOperatorWriteNode as_call_operator_write_node visit_call_operator_write_node;
    CallOrWriteNode as_call_or_write_node visit_call_or_write_node;
    CallTargetNode as_call_target_node visit_call_target_node;
    CapturePatternNode as_capture_pattern_node visit_capture_pattern_node;
    CaseMatchNode as_case_match_node visit_case_match_node;
    CaseNode as_case_node visit_case_node;
    ClassNode as_class_node visit_class_node;
    ClassVariableAndWriteNode as_class_variable_and_write_node visit_class_variable_and_write_node;
    ClassVariableOperatorWriteNode as_class_variable_operator_write_node visit_class_variable_operator_write_node;
    ClassVariableOrWriteNode as_class_variable_or_write_node visit_class_variable_or_write_node;
    ClassVariableReadNode as_class_variable_read_node visit_class_variable_read_node;
    ClassVariableTargetNode as_class_variable_target_node visit_class_variable_target_node;
    ClassVariableWriteNode as_class_variable_write_node visit_class_variable_write_node;
    ConstantAndWriteNode as_constant_and_write_node visit_constant_and_write_node;
    ConstantOperatorWriteNode as_constant_operator_write_node visit_constant_operator_write_node;
    ConstantOrWriteNode as_constant_or_write_node visit_constant_or_write_node;
    ConstantPathAndWriteNode as_constant_path_and_write_node visit_constant_path_and_write_node;
    ConstantPathNode as_constant_path_node visit_constant_path_node;
    ConstantPathOperatorWriteNode as_constant_path_operator_write_node visit_constant_path_operator_write_node;
    ConstantPathOrWriteNode as_constant_path_or_write_node visit_constant_path_or_write_node;
    ConstantPathTargetNode as_constant_path_target_node visit_constant_path_target_node;
    ConstantPathWriteNode as_constant_path_write_node visit_constant_path_write_node;
    ConstantReadNode as_constant_read_node visit_constant_read_node;
    ConstantTargetNode as_constant_target_node visit_constant_target_node;
    ConstantWriteNode as_constant_write_node visit_constant_write_node;
    DefNode as_def_node visit_def_node;
    DefinedNode as_defined_node visit_defined_node;
    ElseNode as_else_node visit_else_node;
    EmbeddedStatementsNode as_embedded_statements_node visit_embedded_statements_node;
    EmbeddedVariableNode as_embedded_variable_node visit_embedded_variable_node;
    EnsureNode as_ensure_node visit_ensure_node;
    ErrorRecoveryNode as_error_recovery_node visit_error_recovery_node;
    FalseNode as_false_node visit_false_node;
    FindPatternNode as_find_pattern_node visit_find_pattern_node;
    FlipFlopNode as_flip_flop_node visit_flip_flop_node;
    FloatNode as_float_node visit_float_node;
    ForNode as_for_node visit_for_node;
    ForwardingArgumentsNode as_forwarding_arguments_node visit_forwarding_arguments_node;
    ForwardingParameterNode as_forwarding_parameter_node visit_forwarding_parameter_node;
    ForwardingSuperNode as_forwarding_super_node visit_forwarding_super_node;
    GlobalVariableAndWriteNode as_global_variable_and_write_node visit_global_variable_and_write_node;
    GlobalVariableOperatorWriteNode as_global_variable_operator_write_node visit_global_variable_operator_write_node;
    GlobalVariableOrWriteNode as_global_variable_or_write_node visit_global_variable_or_write_node;
    GlobalVariableReadNode as_global_variable_read_node visit_global_variable_read_node;
    GlobalVariableTargetNode as_global_variable_target_node visit_global_variable_target_node;
    GlobalVariableWriteNode as_global_variable_write_node visit_global_variable_write_node;
    HashNode as_hash_node visit_hash_node;
    HashPatternNode as_hash_pattern_node visit_hash_pattern_node;
    IfNode as_if_node visit_if_node;
    ImaginaryNode as_imaginary_node visit_imaginary_node;
    ImplicitNode as_implicit_node visit_implicit_node;
    ImplicitRestNode as_implicit_rest_node visit_implicit_rest_node;
    InNode as_in_node visit_in_node;
    IndexAndWriteNode as_index_and_write_node visit_index_and_write_node;
    IndexOperatorWriteNode as_index_operator_write_node visit_index_operator_write_node;
    IndexOrWriteNode as_index_or_write_node visit_index_or_write_node;
    IndexTargetNode as_index_target_node visit_index_target_node;
    InstanceVariableAndWriteNode as_instance_variable_and_write_node visit_instance_variable_and_write_node;
    InstanceVariableOperatorWriteNode as_instance_variable_operator_write_node visit_instance_variable_operator_write_node;
    InstanceVariableOrWriteNode as_instance_variable_or_write_node visit_instance_variable_or_write_node;
    InstanceVariableReadNode as_instance_variable_read_node visit_instance_variable_read_node;
    InstanceVariableTargetNode as_instance_variable_target_node visit_instance_variable_target_node;
    InstanceVariableWriteNode as_instance_variable_write_node visit_instance_variable_write_node;
    IntegerNode as_integer_node visit_integer_node;
    InterpolatedMatchLastLineNode as_interpolated_match_last_line_node visit_interpolated_match_last_line_node;
    InterpolatedRegularExpressionNode as_interpolated_regular_expression_node visit_interpolated_regular_expression_node;
    InterpolatedStringNode as_interpolated_string_node visit_interpolated_string_node;
    InterpolatedSymbolNode as_interpolated_symbol_node visit_interpolated_symbol_node;
    InterpolatedXStringNode as_interpolated_x_string_node visit_interpolated_x_string_node;
    ItLocalVariableReadNode as_it_local_variable_read_node visit_it_local_variable_read_node;
    ItParametersNode as_it_parameters_node visit_it_parameters_node;
    KeywordHashNode as_keyword_hash_node visit_keyword_hash_node;
    KeywordRestParameterNode as_keyword_rest_parameter_node visit_keyword_rest_parameter_node;
    LambdaNode as_lambda_node visit_lambda_node;
    LocalVariableAndWriteNode as_local_variable_and_write_node visit_local_variable_and_write_node;
    LocalVariableOperatorWriteNode as_local_variable_operator_write_node visit_local_variable_operator_write_node;
    LocalVariableOrWriteNode as_local_variable_or_write_node visit_local_variable_or_write_node;
    LocalVariableReadNode as_local_variable_read_node visit_local_variable_read_node;
    LocalVariableTargetNode as_local_variable_target_node visit_local_variable_target_node;
    LocalVariableWriteNode as_local_variable_write_node visit_local_variable_write_node;
    MatchLastLineNode as_match_last_line_node visit_match_last_line_node;
    MatchPredicateNode as_match_predicate_node visit_match_predicate_node;
    MatchRequiredNode as_match_required_node visit_match_required_node;
    MatchWriteNode as_match_write_node visit_match_write_node;
    ModuleNode as_module_node visit_module_node;
    MultiTargetNode as_multi_target_node visit_multi_target_node;
    MultiWriteNode as_multi_write_node visit_multi_write_node;
    NextNode as_next_node visit_next_node;
    NilNode as_nil_node visit_nil_node;
    NoBlockParameterNode as_no_block_parameter_node visit_no_block_parameter_node;
    NoKeywordsParameterNode as_no_keywords_parameter_node visit_no_keywords_parameter_node;
    NumberedParametersNode as_numbered_parameters_node visit_numbered_parameters_node;
    NumberedReferenceReadNode as_numbered_reference_read_node visit_numbered_reference_read_node;
    OptionalKeywordParameterNode as_optional_keyword_parameter_node visit_optional_keyword_parameter_node;
    OptionalParameterNode as_optional_parameter_node visit_optional_parameter_node;
    OrNode as_or_node visit_or_node;
    ParametersNode as_parameters_node visit_parameters_node;
    ParenthesesNode as_parentheses_node visit_parentheses_node;
    PinnedExpressionNode as_pinned_expression_node visit_pinned_expression_node;
    PinnedVariableNode as_pinned_variable_node visit_pinned_variable_node;
    PostExecutionNode as_post_execution_node visit_post_execution_node;
    PreExecutionNode as_pre_execution_node visit_pre_execution_node;
    ProgramNode as_program_node visit_program_node;
    RangeNode as_range_node visit_range_node;
    RationalNode as_rational_node visit_rational_node;
    RedoNode as_redo_node visit_redo_node;
    RegularExpressionNode as_regular_expression_node visit_regular_expression_node;
    RequiredKeywordParameterNode as_required_keyword_parameter_node visit_required_keyword_parameter_node;
    RequiredParameterNode as_required_parameter_node visit_required_parameter_node;
    RescueModifierNode as_rescue_modifier_node visit_rescue_modifier_node;
    RescueNode as_rescue_node visit_rescue_node;
    RestParameterNode as_rest_parameter_node visit_rest_parameter_node;
    RetryNode as_retry_node visit_retry_node;
    ReturnNode as_return_node visit_return_node;
    SelfNode as_self_node visit_self_node;
    ShareableConstantNode as_shareable_constant_node visit_shareable_constant_node;
    SingletonClassNode as_singleton_class_node visit_singleton_class_node;
    SourceEncodingNode as_source_encoding_node visit_source_encoding_node;
    SourceFileNode as_source_file_node visit_source_file_node;
    SourceLineNode as_source_line_node visit_source_line_node;
    SplatNode as_splat_node visit_splat_node;
    StatementsNode as_statements_node visit_statements_node;
    StringNode as_string_node visit_string_node;
    SuperNode as_super_node visit_super_node;
    SymbolNode as_symbol_node visit_symbol_node;
    TrueNode as_true_node visit_true_node;
    UndefNode as_undef_node visit_undef_node;
    UnlessNode as_unless_node visit_unless_node;
    UntilNode as_until_node visit_until_node;
    WhenNode as_when_node visit_when_node;
    WhileNode as_while_node visit_while_node;
    XStringNode as_x_string_node visit_x_string_node;
    YieldNode as_yield_node visit_yield_node;
}
