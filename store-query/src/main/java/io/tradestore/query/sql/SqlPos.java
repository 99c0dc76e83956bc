package io.tradestore.query.sql;

import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.parser.ASTNodeAccess;
import net.sf.jsqlparser.parser.SimpleNode;
import net.sf.jsqlparser.parser.Token;

/**
 * A place in the SQL text, 1-based as editors count.
 *
 * @param line   the line.
 * @param column the column (characters from the start of the line, the first being 1).
 */
public record SqlPos(int line, int column) {
    /** The start of the text: where a fault of the whole statement is reported. */
    public static final SqlPos START = new SqlPos(1, 1);

    /**
     * @param node     a parsed node.
     * @param fallback where to point when the parser kept no position for the node or its first operand.
     * @return where the node starts.
     */
    static SqlPos of(final Object node, final SqlPos fallback) {
        Object n = node;
        // the parser keeps tokens for leaves and calls; an operator's place is its first operand's
        for (int depth = 0; n != null && depth < 1_000; depth++) {
            if (n instanceof ASTNodeAccess a && a.getASTNode() != null) {
                final SimpleNode s = a.getASTNode();
                final Token t = s.jjtGetFirstToken();
                if (t != null && t.beginLine > 0) {
                    return new SqlPos(t.beginLine, t.beginColumn);
                }
            }
            if (n instanceof BinaryExpression b) {
                n = b.getLeftExpression();
            } else if (n instanceof Between b) {
                n = b.getLeftExpression();
            } else if (n instanceof InExpression i) {
                n = i.getLeftExpression();
            } else if (n instanceof IsNullExpression i) {
                n = i.getLeftExpression();
            } else if (n instanceof NotExpression e) {
                n = e.getExpression();
            } else if (n instanceof ExpressionList<?> l && !l.isEmpty()) {
                n = l.get(0);
            } else {
                break;
            }
        }
        return fallback;
    }

    @Override
    public String toString() {
        return "line " + line + ", column " + column;
    }
}
